package io.geneid.spring.boot.sharding;

import com.baomidou.mybatisplus.extension.service.impl.ServiceImpl;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItem;
import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItemMapper;
import org.springframework.stereotype.Service;

/**
 * MyBatis-Plus's service over the items ({@code saveBatch}) for the shared {@link ShardingSphereMybatisPlusTest}; each
 * starter has its own: MyBatis-Plus 3.5.17 moved ServiceImpl's package.
 */
@Service
public class OrderItemService extends ServiceImpl<OrderItemMapper, OrderItem> implements OrderItems {}
