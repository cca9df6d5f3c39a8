package io.geneid.shardingsphere;

import io.geneid.core.bucket.BucketMapRouter;
import java.util.List;
import org.apache.shardingsphere.infra.database.core.connector.ConnectionProperties;
import org.apache.shardingsphere.infra.executor.sql.hook.SQLExecutionHook;

/**
 * Tells the JVM's bucket map routers that the statements a thread routed have reached their databases
 * ({@link BucketMapRouter#statementRan()}), so their heartbeats no longer hold back the version those statements
 * were routed with. ShardingSphere runs one unit of each statement on the thread that routed it (the trunk thread)
 * and calls this hook when that unit ends, with success or failure. Registered as a ShardingSphere
 * {@code SQLExecutionHook} service; not an API.
 */
public final class GeneBucketExecutionHook implements SQLExecutionHook {

  /** Called by ShardingSphere. */
  public GeneBucketExecutionHook() {
  }

  @Override
  public void start(String dataSourceName, String sql, List<Object> params, ConnectionProperties connectionProps,
      boolean isTrunkThread) {
  }

  @Override
  public void finishSuccess() {
    BucketMapRouter.statementRan();
  }

  @Override
  public void finishFailure(Exception cause) {
    BucketMapRouter.statementRan();
  }
}
