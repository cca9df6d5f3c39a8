package io.geneid.shardingsphere;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A physical data source that records every statement executed through it as {@code "ds ::: sql"} into a shared
 * log, so a test can count how many physical statements one logical query produced. The getters let ShardingSphere
 * read the URL, as it does from a pool.
 */
public final class CountingDataSource implements DataSource {

  private static final Set<String> EXECUTE = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
      "executeBatch", "executeLargeBatch");

  private final String name;
  private final DataSource target;
  private final String url;
  private final String username;
  private final String password;
  private final List<String> log;
  private volatile Runnable onConnect = () -> { };

  public CountingDataSource(String name, DataSource target, String url, String username, String password,
      List<String> log) {
    this.name = name;
    this.target = target;
    this.url = url;
    this.username = username;
    this.password = password;
    this.log = log;
  }

  public String getUrl() {
    return url;
  }

  public String getUsername() {
    return username;
  }

  public String getPassword() {
    return password;
  }

  public DataSource target() {
    return target;
  }

  /** Runs {@code hook} on the calling thread before each connection is taken (a test's slow pool). */
  public void onConnect(Runnable hook) {
    this.onConnect = hook;
  }

  @Override
  public Connection getConnection() throws SQLException {
    onConnect.run();
    return wrapConnection(target.getConnection());
  }

  @Override
  public Connection getConnection(String user, String pass) throws SQLException {
    return wrapConnection(target.getConnection(user, pass));
  }

  private Connection wrapConnection(Connection connection) {
    InvocationHandler handler = (proxy, method, args) -> {
      if (isIdentity(method)) {
        return identity(proxy, method, args);
      }
      Object result = invoke(connection, method, args);
      String m = method.getName();
      if (result instanceof PreparedStatement && args != null && args.length > 0 && args[0] instanceof String) {
        return wrapStatement((Statement) result, (String) args[0], PreparedStatement.class);
      }
      if (result instanceof Statement && m.equals("createStatement")) {
        return wrapStatement((Statement) result, null, Statement.class);
      }
      return result;
    };
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
        handler);
  }

  private Statement wrapStatement(Statement statement, String preparedSql, Class<? extends Statement> type) {
    InvocationHandler handler = (proxy, method, args) -> {
      if (isIdentity(method)) {
        return identity(proxy, method, args);
      }
      if (EXECUTE.contains(method.getName())) {
        String sql = args != null && args.length > 0 && args[0] instanceof String ? (String) args[0] : preparedSql;
        log.add(name + " ::: " + sql);
      }
      return invoke(statement, method, args);
    };
    return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
  }

  /** equals, hashCode and toString of a proxy: ShardingSphere finds its statements again by identity. */
  private static boolean isIdentity(Method method) {
    return method.getDeclaringClass() == Object.class;
  }

  private static Object identity(Object proxy, Method method, Object[] args) {
    switch (method.getName()) {
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      default:
        return "counted " + Integer.toHexString(System.identityHashCode(proxy));
    }
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() {
    return Logger.getLogger("CountingDataSource");
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(this) || target.isWrapperFor(iface);
  }
}
