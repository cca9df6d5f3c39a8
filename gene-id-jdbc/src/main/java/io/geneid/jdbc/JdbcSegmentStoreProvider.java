package io.geneid.jdbc;

import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStoreProvider;
import io.geneid.core.settings.SettingsReader;
import java.util.Set;

/**
 * {@code segment-store=jdbc}: a {@link JdbcSegmentStore} over {@link java.sql.DriverManager}. Keys:
 * {@code jdbc-url} (required), {@code jdbc-username}, {@code jdbc-password}, {@code jdbc-table} (default
 * {@code gene_id_segment}), {@code jdbc-create-table} (default false). Applications with a
 * {@link javax.sql.DataSource} use {@link JdbcSegmentStore.Builder#dataSource(javax.sql.DataSource)} instead.
 */
public final class JdbcSegmentStoreProvider implements SegmentStoreProvider {

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
    JdbcStoreSettings.check(props, JdbcSegmentStore.DEFAULT_TABLE);
  }

  @Override
  public SegmentStore create(SettingsReader props) {
    return JdbcSegmentStore.builder()
        .jdbcUrl(JdbcStoreSettings.url(props), JdbcStoreSettings.username(props), JdbcStoreSettings.password(props))
        .table(JdbcStoreSettings.table(props, JdbcSegmentStore.DEFAULT_TABLE))
        .createTable(JdbcStoreSettings.createTable(props))
        .build();
  }
}
