package io.geneid.spring.boot.sharding;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import io.geneid.core.GeneSource;
import org.apache.ibatis.annotations.Mapper;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small Spring Boot application: orders and their items through MyBatis-Plus into ShardingSphere. */
@SpringBootApplication
@MapperScan(basePackageClasses = ShardingTestApplication.class, annotationClass = Mapper.class)
public class ShardingTestApplication {

  /** A root row: its id is spread over the genes. */
  @TableName("t_order")
  public static class Order {
    @TableId(type = IdType.ASSIGN_ID)
    private Long id;
    private String customer;

    public Order() {}

    public Order(String customer) {
      this.customer = customer;
    }

    public Long getId() {
      return id;
    }

    public void setId(Long id) {
      this.id = id;
    }

    public String getCustomer() {
      return customer;
    }

    public void setCustomer(String customer) {
      this.customer = customer;
    }
  }

  /** A child row: its id carries its order's gene. */
  @TableName("t_order_item")
  public static class OrderItem {
    @TableId(type = IdType.ASSIGN_ID)
    private Long id;
    @GeneSource
    private Long orderId;
    private String sku;

    public OrderItem() {}

    public OrderItem(Long orderId, String sku) {
      this.orderId = orderId;
      this.sku = sku;
    }

    public Long getId() {
      return id;
    }

    public void setId(Long id) {
      this.id = id;
    }

    public Long getOrderId() {
      return orderId;
    }

    public void setOrderId(Long orderId) {
      this.orderId = orderId;
    }

    public String getSku() {
      return sku;
    }

    public void setSku(String sku) {
      this.sku = sku;
    }
  }

  @Mapper
  public interface OrderMapper extends BaseMapper<Order> {}

  @Mapper
  public interface OrderItemMapper extends BaseMapper<OrderItem> {}
}
