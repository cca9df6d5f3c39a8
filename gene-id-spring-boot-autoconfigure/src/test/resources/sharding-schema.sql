-- logical tables: ShardingSphere creates them on every data node
CREATE TABLE IF NOT EXISTS t_order (id BIGINT NOT NULL PRIMARY KEY, customer VARCHAR(64) NOT NULL);
CREATE TABLE IF NOT EXISTS t_order_item (id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
