package io.geneid.jdbc;

import io.geneid.core.internal.StoreUrls;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Connections from {@link DriverManager}, one per store operation (a refresh is a load and a heartbeat, once per
 * refresh interval): the map table is read a few times a second at most, so it needs no pool of its own, and
 * properties ({@link JdbcBucketMapStoreProvider}) give it only a URL. Its messages never show the password.
 */
final class DriverManagerDataSource implements DataSource {
  private final String url;
  private final Properties credentials = new Properties();

  DriverManagerDataSource(String url, @Nullable String user, @Nullable String password) {
    this.url = url;
    if (user != null) {
      credentials.setProperty("user", user);
    }
    if (password != null) {
      credentials.setProperty("password", password);
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    try {
      return DriverManager.getConnection(url, credentials);
    } catch (SQLException e) {
      // "No suitable driver found for <the URL, password and all>"
      throw new SQLException(StoreUrls.scrub(e.getMessage(), url), e.getSQLState(), e.getErrorCode());
    }
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the map store connects with the configured user only");
  }

  @Override
  public @Nullable PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(@Nullable PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no java.util.logging");
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }

  @Override
  public String toString() {
    return "DriverManager " + StoreUrls.describe(url);
  }
}
