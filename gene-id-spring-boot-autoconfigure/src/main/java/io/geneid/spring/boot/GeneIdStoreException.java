package io.geneid.spring.boot;

import io.geneid.core.GeneIdException;
import io.geneid.spring.boot.GeneIdProperties.Jdbc;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The store of leases or segments failed at start-up in a way the configuration can fix: it cannot be reached, it
 * refused the credentials, or its table is missing. Carries what {@link GeneIdStoreFailureAnalyzer} prints: the
 * store and the property that points at it, the cause in one line (the store's own message, which never holds a
 * password), and what to change.
 */
final class GeneIdStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private static final String P = GeneIdProperties.PREFIX;
  private static final String REDIS_URI = P + ".redis.uri";
  private static final String URI_FORMS = "redis://host:port/database, or redis://:password@host:port/database"
      + " (redis://user:password@host:port/database for an ACL user) when Redis asks for a password";

  /** What went wrong with the store. */
  enum Kind {
    UNREACHABLE, CREDENTIALS, MISSING_TABLE, NO_DRIVER
  }

  private final String action;

  private GeneIdStoreException(String description, String action, Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  String action() {
    return action;
  }

  /**
   * The report of a failure to lease a worker id from the store of {@code properties}, or null when {@code failure}
   * is not a store failure a property can fix (it is then rethrown as it is).
   */
  static @Nullable GeneIdStoreException ofLease(GeneIdProperties properties, RuntimeException failure) {
    Jdbc jdbc = properties.jdbc();
    return switch (properties.workerAssigner()) {
      case REDIS -> redis("worker-id lease store", failure);
      case JDBC -> jdbc("worker-id lease store", jdbc,
          jdbc.leaseTable() != null ? jdbc.leaseTable() : JdbcSupport.DEFAULT_LEASE_TABLE, P + ".jdbc.lease-table",
          "docs/leases.md (or JdbcWorkerIdAssigner.ddl(table))", failure);
      default -> null; // ZooKeeper and etcd: not classified (yet); their exception stands
    };
  }

  /** As {@link #ofLease}, for the segment store of {@code gene-id.segment.store}. */
  static @Nullable GeneIdStoreException ofSegments(GeneIdProperties properties, RuntimeException failure) {
    Jdbc jdbc = properties.jdbc();
    return properties.segment().store() == GeneIdProperties.SegmentStoreType.REDIS
        ? redis("segment store", failure)
        : jdbc("segment store", jdbc, jdbc.segmentTable(), P + ".jdbc.segment-table",
            "docs/segments.md (or JdbcSegmentStore.ddl(table))", failure);
  }

  private static @Nullable GeneIdStoreException redis(String store, RuntimeException failure) {
    Kind kind = kind(failure);
    if (kind == Kind.CREDENTIALS) {
      return new GeneIdStoreException("The " + store + " (" + REDIS_URI + ") refused the credentials:\n  "
          + causeLine(failure), "Put the password Redis expects (its requirepass, or an ACL user's) in " + REDIS_URI
          + ": " + URI_FORMS + ". Percent-encode / + @ : % and spaces in the password (p/w is p%2Fw).", failure);
    }
    if (kind == Kind.UNREACHABLE) {
      return new GeneIdStoreException("The " + store + " (" + REDIS_URI + ") cannot be reached:\n  "
          + causeLine(failure), "Start Redis there, or set " + REDIS_URI + " to the Redis that holds the "
          + (store.startsWith("segment") ? "segment counters" : "leases") + ": " + URI_FORMS + ". " + P
          + ".redis.timeout bounds the wait for each command.", failure);
    }
    return null;
  }

  private static @Nullable GeneIdStoreException jdbc(String store, Jdbc jdbc, String table, String tableProperty,
      String ddl, RuntimeException failure) {
    Kind kind = kind(failure);
    if (kind == null) {
      return null;
    }
    boolean own = jdbc.url() != null;
    String where = own ? P + ".jdbc.url" : "the application's DataSource, spring.datasource.url, as " + P
        + ".jdbc.url is not set";
    return switch (kind) {
      case MISSING_TABLE -> new GeneIdStoreException("The " + store + " has no table " + table + " (" + tableProperty
          + ") in " + where + ":\n  " + causeLine(failure), "Set " + P + ".jdbc.create-tables: true to have"
          + " gene-id create it at start-up, or create it once with the DDL in " + ddl + ". If it exists under"
          + " another name or schema, set " + tableProperty + ".", failure);
      case CREDENTIALS -> new GeneIdStoreException("The database of the " + store + " (" + where
          + ") refused the credentials:\n  " + causeLine(failure), own
          ? "Set the user and password the database accepts in " + P + ".jdbc.username and " + P
              + ".jdbc.password (or in " + P + ".jdbc.url)."
          : "Set the user and password the database accepts in spring.datasource.username and"
              + " spring.datasource.password, or give gene-id a database of its own with " + P + ".jdbc.url.",
          failure);
      case NO_DRIVER -> new GeneIdStoreException("No JDBC driver on the class path takes the URL of the " + store
          + " (" + where + "):\n  " + causeLine(failure), "Add the database's JDBC driver to the dependencies"
          + " (org.mariadb.jdbc:mariadb-java-client, org.postgresql:postgresql, com.mysql:mysql-connector-j), or fix"
          + " the URL: jdbc:mariadb://host:3306/database, jdbc:postgresql://host:5432/database.", failure);
      case UNREACHABLE -> new GeneIdStoreException("The database of the " + store + " (" + where
          + ") cannot be reached:\n  " + causeLine(failure), "Start the database there, or set " + (own
              ? P + ".jdbc.url (with " + P + ".jdbc.username and " + P + ".jdbc.password)"
              : "spring.datasource.url, or give gene-id a database of its own with " + P + ".jdbc.url")
          + " to the database that holds the table " + table + ".", failure);
    };
  }

  /** What the cause chain of {@code failure} says went wrong, or null when it is none of the kinds. */
  static @Nullable Kind kind(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (t instanceof SQLException && message.startsWith("No suitable driver")) {
        return Kind.NO_DRIVER;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("28")) {
          return Kind.CREDENTIALS; // invalid authorization: wrong password, unknown user
        }
        if (state.equals("42S02") || state.equals("42P01") || state.equals("42S03") || state.equals("42S04")) {
          return Kind.MISSING_TABLE; // MariaDB/MySQL/H2, PostgreSQL; H2 with candidates, in an empty database
        }
        if (state.startsWith("08")) {
          return Kind.UNREACHABLE;
        }
      }
      if (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH") || message.startsWith("ERR AUTH")
          || message.startsWith("ERR invalid password") || message.startsWith("ERR Client sent AUTH")) {
        return Kind.CREDENTIALS; // Redis
      }
      if (t instanceof java.net.ConnectException || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException || t instanceof SocketTimeoutException
          || t.getClass().getName().equals("io.lettuce.core.RedisConnectionException") && (t.getCause() == null
              || t.getCause().getClass().getName().equals("io.lettuce.core.RedisCommandTimeoutException"))) {
        // a Lettuce connection whose handshake timed out (the port took the connection, nothing answered within
        // gene-id.redis.timeout) is as unreachable as a refused one
        return Kind.UNREACHABLE;
      }
    }
    return null;
  }

  /**
   * The cause in one line: the message of the innermost gene-id exception (it names the store by scheme, host, port
   * and database, never with a password), and the network error under it when that one says more.
   */
  static String causeLine(Throwable failure) {
    String line = String.valueOf(failure.getMessage());
    Throwable root = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof GeneIdException) {
        line = String.valueOf(t.getMessage());
      }
      root = t;
    }
    if (root instanceof java.io.IOException && root.getMessage() != null && !line.contains(root.getMessage())) {
      line += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return line.replace('\n', ' ');
  }
}
