package io.geneid.spring.boot.sharding;

import io.geneid.spring.boot.sharding.ShardingTestApplication.OrderItem;
import java.util.Collection;

/**
 * The items through MyBatis-Plus's service ({@code saveBatch}). Each starter's tests have the bean,
 * {@code OrderItemService}: MyBatis-Plus 3.5.17 (Boot 4) moved {@code ServiceImpl}'s package, so the shared tests
 * name only this interface.
 */
public interface OrderItems {

  /** {@code ServiceImpl.saveBatch}: inserts the items in batches of {@code batchSize}. */
  boolean saveBatch(Collection<OrderItem> items, int batchSize);
}
