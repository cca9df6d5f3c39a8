package io.geneid.mybatis.h2;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import io.geneid.core.GeneSource;
import java.util.UUID;
import org.apache.ibatis.annotations.Mapper;

/** Entities and mappers of the H2 tests. */
final class Entities {
  private Entities() {}

  static final String DDL = """
      CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL);
      CREATE TABLE t_order_item (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64) NOT NULL);
      CREATE TABLE t_cart (id VARCHAR(20) PRIMARY KEY, customer_code VARCHAR(64) NOT NULL);
      CREATE TABLE t_device_event (id BIGINT PRIMARY KEY, device_id UUID NOT NULL);
      CREATE TABLE t_narrow (id INT PRIMARY KEY, order_id BIGINT NOT NULL);
      """;

  @TableName("t_order")
  static class Order {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    String customer;

    Order(String customer) {
      this.customer = customer;
    }

    Order() {}
  }

  @TableName("t_order_item")
  static class OrderItem {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    @GeneSource
    Long orderId;
    String sku;

    OrderItem(Long orderId, String sku) {
      this.orderId = orderId;
      this.sku = sku;
    }

    OrderItem() {}
  }

  /** A String id (MyBatis-Plus stores the id's decimal text) and a String parent key. */
  @TableName("t_cart")
  static class Cart {
    @TableId(type = IdType.ASSIGN_ID)
    String id;
    @GeneSource
    String customerCode;

    Cart(String customerCode) {
      this.customerCode = customerCode;
    }

    Cart() {}
  }

  @TableName("t_device_event")
  static class DeviceEvent {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
    @GeneSource
    UUID deviceId;

    DeviceEvent(UUID deviceId) {
      this.deviceId = deviceId;
    }

    DeviceEvent() {}
  }

  /** An id MyBatis-Plus would truncate: refused. */
  @TableName("t_narrow")
  static class NarrowRow {
    @TableId(type = IdType.ASSIGN_ID)
    Integer id;
    @GeneSource
    Long orderId;

    NarrowRow(Long orderId) {
      this.orderId = orderId;
    }

    NarrowRow() {}
  }

  @Mapper
  interface OrderMapper extends BaseMapper<Order> {}

  @Mapper
  interface OrderItemMapper extends BaseMapper<OrderItem> {}

  @Mapper
  interface CartMapper extends BaseMapper<Cart> {}

  @Mapper
  interface DeviceEventMapper extends BaseMapper<DeviceEvent> {}

  @Mapper
  interface NarrowMapper extends BaseMapper<NarrowRow> {}
}
