package io.geneid.jdbc;

import io.geneid.core.bucket.BucketMapStore;
import io.geneid.core.bucket.BucketMapStoreProvider;
import io.geneid.core.settings.SettingsReader;
import java.util.Set;

/**
 * {@code map-store=jdbc}: a {@link JdbcBucketMapStore} with a connection from {@link java.sql.DriverManager} per
 * operation (the map table is read a few times a second at most). Keys: {@code jdbc-url} (required),
 * {@code jdbc-username}, {@code jdbc-password}, {@code jdbc-table} (default {@code gene_id_bucket_map}),
 * {@code jdbc-create-table} (default false). Applications with a {@link javax.sql.DataSource} use
 * {@link JdbcBucketMapStore.Builder#dataSource(javax.sql.DataSource)} instead.
 */
public final class JdbcBucketMapStoreProvider implements BucketMapStoreProvider {

  @Override
  public String type() {
    return "jdbc";
  }

  @Override
  public Set<String> propertyKeys() {
    return JdbcStoreSettings.KEYS;
  }

  /** Checks {@code jdbc-url} (present, {@code jdbc:...}), {@code jdbc-table} and {@code jdbc-create-table} offline. */
  @Override
  public void check(SettingsReader props) {
    JdbcStoreSettings.check(props, JdbcBucketMapStore.DEFAULT_TABLE);
  }

  @Override
  public BucketMapStore create(SettingsReader props) {
    return JdbcBucketMapStore.builder()
        .dataSource(new DriverManagerDataSource(JdbcStoreSettings.url(props), JdbcStoreSettings.username(props),
            JdbcStoreSettings.password(props)))
        .table(JdbcStoreSettings.table(props, JdbcBucketMapStore.DEFAULT_TABLE))
        .createTable(JdbcStoreSettings.createTable(props))
        .build();
  }
}
