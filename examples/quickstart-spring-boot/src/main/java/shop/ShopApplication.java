package shop;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.conditions.query.QueryWrapper;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import io.geneid.core.GeneSource;
import java.util.List;
import org.apache.ibatis.annotations.Mapper;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
@MapperScan(annotationClass = Mapper.class)
public class ShopApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }

  @TableName("t_order")
  public static class Order {
    @TableId(type = IdType.ASSIGN_ID) public Long id;  // spread over the genes: orders balance over the tables
    public String customer;
  }

  @TableName("t_order_item")
  public static class OrderItem {
    @TableId(type = IdType.ASSIGN_ID) public Long id;  // carries orderId's gene: lands with its order
    @GeneSource public Long orderId;
    public String sku;
  }

  @Mapper public interface OrderMapper extends BaseMapper<Order> {}

  @Mapper public interface OrderItemMapper extends BaseMapper<OrderItem> {}

  @Bean
  CommandLineRunner demo(OrderMapper orders, OrderItemMapper items) {
    return args -> {
      Order order = new Order();
      order.customer = "alice";
      orders.insert(order);
      OrderItem item = new OrderItem();
      item.orderId = order.id;
      item.sku = "book";
      items.insert(item);                                                   // its order's database and table
      OrderItem byId = items.selectById(item.id);                           // by its own id: one table
      List<OrderItem> byOrder = items.selectList(
          new QueryWrapper<OrderItem>().eq("order_id", order.id));           // by its order's id: one table
      System.out.printf("order %d: item %d (%s) found by its id, %d item(s) by order id%n",
          order.id, byId.id, byId.sku, byOrder.size());
    };
  }
}
