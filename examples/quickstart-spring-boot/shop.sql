-- mariadb -u root < shop.sql: the two databases, and the tables where ShardingSphere puts them (t_*_i in shop_(i % 2))
CREATE DATABASE IF NOT EXISTS shop_0;
CREATE DATABASE IF NOT EXISTS shop_1;
-- in shop_0
CREATE TABLE IF NOT EXISTS shop_0.t_order_0 (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_0.t_order_2 (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_0.t_order_item_0 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_0.t_order_item_2 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
-- in shop_1
CREATE TABLE IF NOT EXISTS shop_1.t_order_1 (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_1.t_order_3 (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_1.t_order_item_1 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS shop_1.t_order_item_3 (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
