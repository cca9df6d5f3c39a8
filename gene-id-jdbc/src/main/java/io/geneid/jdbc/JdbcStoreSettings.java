package io.geneid.jdbc;

import io.geneid.core.internal.StoreUrls;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The connection and table settings the JDBC store providers share, read from {@link StoreKeys}. */
final class JdbcStoreSettings {

  /** The keys both JDBC store providers read. */
  static final Set<String> KEYS = Set.of(StoreKeys.JDBC_URL, StoreKeys.JDBC_USERNAME, StoreKeys.JDBC_PASSWORD,
      StoreKeys.JDBC_TABLE, StoreKeys.JDBC_CREATE_TABLE);

  private JdbcStoreSettings() {}

  /** Checks {@code jdbc-url} (present, {@code jdbc:...}), {@code jdbc-table} and {@code jdbc-create-table} offline. */
  static void check(SettingsReader props, String defaultTable) {
    url(props);
    table(props, defaultTable);
    createTable(props);
  }

  /** {@code jdbc-url}: present and starting with {@code jdbc:}. */
  static String url(SettingsReader props) {
    String url = props.requiredString(StoreKeys.JDBC_URL, "a JDBC URL such as jdbc:mariadb://127.0.0.1:3306/app");
    if (!url.startsWith("jdbc:")) {
      throw new IllegalArgumentException(props.nameOf(StoreKeys.JDBC_URL) + " must be a JDBC URL starting with jdbc:"
          + " but was '" + StoreUrls.describe(url) + "'");
    }
    return url;
  }

  /** {@code jdbc-username}, or null. */
  static @Nullable String username(SettingsReader props) {
    return props.has(StoreKeys.JDBC_USERNAME) ? props.string(StoreKeys.JDBC_USERNAME, "") : null;
  }

  /** {@code jdbc-password} as given (not trimmed), or null. */
  static @Nullable String password(SettingsReader props) {
    return props.has(StoreKeys.JDBC_PASSWORD) ? String.valueOf(props.raw(StoreKeys.JDBC_PASSWORD)) : null;
  }

  /** {@code jdbc-table}, checked by the stores' one rule for table names and named as the reader names it. */
  static String table(SettingsReader props, String defaultTable) {
    String table = props.string(StoreKeys.JDBC_TABLE, defaultTable);
    try {
      return JdbcSession.checkTable(StoreKeys.JDBC_TABLE, table);
    } catch (InvalidSettingException e) {
      throw props.named(e);
    }
  }

  /** {@code jdbc-create-table}, default false. */
  static boolean createTable(SettingsReader props) {
    return props.bool(StoreKeys.JDBC_CREATE_TABLE, false);
  }
}
