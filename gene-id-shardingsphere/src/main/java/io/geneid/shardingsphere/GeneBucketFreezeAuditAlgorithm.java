package io.geneid.shardingsphere;

import io.geneid.core.GeneIdException;
import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStaleException;
import io.geneid.core.bucket.BucketState;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.apache.shardingsphere.infra.binder.context.statement.SQLStatementContext;
import org.apache.shardingsphere.infra.binder.context.statement.dml.SelectStatementContext;
import org.apache.shardingsphere.infra.binder.context.type.TableAvailable;
import org.apache.shardingsphere.infra.metadata.database.ShardingSphereDatabase;
import org.apache.shardingsphere.infra.metadata.database.rule.RuleMetaData;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.ComplexShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.ShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.StandardShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.route.engine.condition.ShardingCondition;
import org.apache.shardingsphere.sharding.route.engine.condition.engine.ShardingConditionEngine;
import org.apache.shardingsphere.sharding.route.engine.condition.value.ListShardingConditionValue;
import org.apache.shardingsphere.sharding.route.engine.condition.value.ShardingConditionValue;
import org.apache.shardingsphere.sharding.rule.ShardingRule;
import org.apache.shardingsphere.sharding.rule.ShardingTable;
import org.apache.shardingsphere.sharding.spi.ShardingAuditAlgorithm;
import org.apache.shardingsphere.sql.parser.statement.core.extractor.ExpressionExtractor;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.column.ColumnSegment;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.BinaryOperationExpression;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.ExpressionSegment;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.InExpression;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.ListExpression;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.simple.LiteralExpressionSegment;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.expr.simple.ParameterMarkerExpressionSegment;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.predicate.AndPredicate;
import org.apache.shardingsphere.sql.parser.statement.core.segment.dml.predicate.WhereSegment;
import org.apache.shardingsphere.sql.parser.statement.core.segment.generic.table.SimpleTableSegment;
import org.apache.shardingsphere.sql.parser.statement.core.statement.SQLStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.DeleteStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.InsertStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.SelectStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.UpdateStatement;
import org.jspecify.annotations.Nullable;

/**
 * ShardingSphere sharding auditor type {@code GENE_BUCKET_FREEZE}: while a bucket of a {@code GENE_BUCKET} family is
 * {@link BucketState#FROZEN} or {@link BucketState#SWITCHING} (a move is copying it, or switching it), refuses
 * every {@code INSERT}, {@code UPDATE} or {@code DELETE} on
 * the family that it cannot prove avoids every frozen bucket (a write to another table, whose subquery reads the
 * family, is not refused). It fails closed: a write goes through only when
 *
 * <ul>
 *   <li>an {@code INSERT ... VALUES} gives every row a value of a sharding column (or the key generator does), none in
 *       a frozen bucket; {@code INSERT ... SELECT} and upserts ({@code ON DUPLICATE KEY UPDATE}, {@code ON CONFLICT})
 *       are refused, as the rows they touch are not named by the statement;
 *   <li>an {@code UPDATE} or {@code DELETE} changes one table (no join, no {@code UPDATE ... FROM}, no
 *       {@code WITH}), and every {@code OR} branch of its {@code WHERE} holds a
 *       {@code <sharding column> = <literal or ?>} or {@code <sharding column> IN (<literals or ?>)}, none in a frozen
 *       bucket (a range, {@code NOT}, an expression or a subquery proves nothing; other conditions beside the proof,
 *       subqueries included, only narrow it and are fine).
 * </ul>
 *
 * A refusal is the retryable {@link BucketFrozenException} naming the bucket, the table and the value (or why the
 * statement could not be proved). It reaches JDBC callers as a {@link java.sql.SQLException} of SQLState
 * {@value #SQL_STATE} (a serialization failure: retry the transaction) and vendor code {@value #VENDOR_CODE}, with the
 * same message and the {@code BucketFrozenException} as its cause. Reads of a frozen bucket are not refused: they
 * keep going to the bucket's old node, which holds its rows.
 *
 * <p>While a bucket is {@link BucketState#SWITCHING} its rows may be in the routed tables of two nodes (the mover
 * publishes the copy before the routers follow the switch, and sets the old rows aside after), so a {@code SELECT}
 * of the family is refused the same way unless it reads one table (no join, subquery, {@code UNION} or {@code WITH})
 * and every {@code OR} branch of its {@code WHERE} names values of a sharding column ({@code =} or {@code IN} of
 * literals or parameters): such a read goes to the nodes the router's map names, which hold the rows throughout the
 * switch, and is let through even for the switching bucket (refusing it would protect nothing). A scan
 * ({@code COUNT(*)}, a filter on another column, a range) is refused for the switch of the bucket (about two refreshes
 * of the map), and so is a write to another table whose subquery reads the family. ShardingSphere 5.5.2 audits every
 * statement that names tables, reads included ({@code ShardingSQLAuditor}). While no bucket of the family is frozen
 * or switching nothing is refused and nothing is parsed. A
 * {@code GENE_BUCKET} that follows a map store ({@link GeneBucketShardingAlgorithm#follow}) also refuses every write
 * while the store has not been reached within its bound ({@link BucketMapStaleException}, the same SQLState).
 *
 * <pre>
 * rules:
 * - !SHARDING
 *   tables:
 *     t_order:
 *       auditStrategy:
 *         auditorNames: [gene_freeze]
 *         allowHintDisable: false
 *   auditors:
 *     gene_freeze:
 *       type: GENE_BUCKET_FREEZE
 * </pre>
 *
 * It has no properties.
 */
public final class GeneBucketFreezeAuditAlgorithm implements ShardingAuditAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_BUCKET_FREEZE";

  /** The SQLState of a refused write: a serialization failure, which callers retry. */
  public static final String SQL_STATE = "40001";

  /** The vendor code of a refused write (ShardingSphere's type offset 2, code 9029). */
  public static final int VENDOR_CODE = 29029;

  /** Creates the auditor. */
  public GeneBucketFreezeAuditAlgorithm() {}

  /**
   * Refuses no property.
   *
   * @throws IllegalArgumentException for any property
   */
  @Override
  public void init(Properties props) {
    AlgorithmProps.of(TYPE, props, List.of());
  }

  /**
   * Refuses a write that may touch a frozen bucket, or any write while a followed map store is stale.
   *
   * <p>The refusal is an {@link SQLTransactionRollbackException} of SQLState {@value #SQL_STATE}, whose cause is the
   * {@link BucketFrozenException} naming the bucket and the table, or the {@link BucketMapStaleException}; it is
   * thrown although this method declares no checked exception, so that every JDBC path passes it on as it is
   * ({@link #refusal}).
   */
  @Override
  public void check(SQLStatementContext context, List<Object> params, RuleMetaData globalRuleMetaData,
      ShardingSphereDatabase database) {
    try {
      audit(context, params, globalRuleMetaData, database);
    } catch (BucketFrozenException | BucketMapStaleException e) {
      throw GeneBucketFreezeAuditAlgorithm.<RuntimeException>throwUnchecked(refusal(e));
    }
  }

  private static void audit(SQLStatementContext context, List<Object> params, RuleMetaData globalRuleMetaData,
      ShardingSphereDatabase database) {
    SQLStatement statement = context.getSqlStatement();
    boolean isRead = statement instanceof SelectStatement;
    if (!(isRead || statement instanceof InsertStatement || statement instanceof UpdateStatement
        || statement instanceof DeleteStatement) || !(context instanceof TableAvailable tables)) {
      return;
    }
    ShardingRule rule = database.getRuleMetaData().getSingleRule(ShardingRule.class);
    Map<String, Family> families = new LinkedHashMap<>();
    for (String name : tables.getTablesContext().getTableNames()) {
      rule.findShardingTable(name).ifPresent(table -> {
        Family family = family(rule, table, name.toLowerCase(Locale.ROOT));
        if (!family.algorithms.isEmpty()) {
          families.put(family.table, family);
        }
      });
    }
    if (families.isEmpty()) {
      return;
    }
    if (isRead) {
      List<Family> read = List.copyOf(families.values());
      auditRead(context, (SelectStatement) statement, params, families);
      read.forEach(f -> f.algorithms.forEach(GeneBucketShardingAlgorithm::readRouting)); // admitted: in flight
      return;
    }
    families.values().forEach(f -> f.algorithms.forEach(GeneBucketShardingAlgorithm::checkWritable));
    families.values().removeIf(f -> f.frozen().isEmpty()); // a table with no frozen bucket cannot touch one
    String written = writtenTable(statement);
    if (written != null && !families.isEmpty() && !families.containsKey(written)) {
      for (Family other : families.values()) { // the table written has no frozen bucket; a subquery reads other
        if (other.switching() != null) {
          throw unprovedScan(statementType(statement), other, "it reads " + other.table + " through a subquery");
        }
      }
      return; // a subquery reads a frozen bucket, which keeps its rows on one node: nothing to prove
    }
    if (families.isEmpty()) {
      return;
    }
    String type = statementType(statement);
    Family family = written != null ? families.get(written) : families.values().iterator().next();
    if (statement instanceof InsertStatement insert) {
      if (insert.getInsertSelect().isPresent()) {
        throw unproved(type, family, "INSERT ... SELECT inserts rows the statement does not name");
      }
      if (insert.getOnDuplicateKeyColumns().isPresent()) {
        throw unproved(type, family, "an upsert (ON DUPLICATE KEY UPDATE, ON CONFLICT) may update a row found by"
            + " another unique key");
      }
      auditInsertRows(type, families, new ShardingConditionEngine(globalRuleMetaData, database, rule)
          .createShardingConditions(context, params));
      return;
    }
    if (written == null) {
      throw unproved(type, family, "it changes the tables of a join");
    }
    if (statement instanceof UpdateStatement u && u.getFrom().isPresent()) {
      throw unproved(type, family, "UPDATE ... FROM joins other tables");
    }
    if ((statement instanceof UpdateStatement u && u.getWithSegment().isPresent())
        || (statement instanceof DeleteStatement d && d.getWithSegment().isPresent())) {
      throw unproved(type, family, "it has a WITH clause");
    }
    Set<String> names = new HashSet<>(Set.of(written)); // what a column's owner may be: the table or its alias
    Object target = statement instanceof UpdateStatement u ? u.getTable() : ((DeleteStatement) statement).getTable();
    ((SimpleTableSegment) target).getAliasName().ifPresent(alias -> names.add(alias.toLowerCase(Locale.ROOT)));
    WhereSegment where = (statement instanceof UpdateStatement u ? u.getWhere() : ((DeleteStatement) statement)
        .getWhere()).orElse(null);
    if (where == null) {
      throw withoutShardingValue(type, family);
    }
    Collection<AndPredicate> branches = ExpressionExtractor.extractAndPredicates(where.getExpr());
    List<String> unproved = new ArrayList<>();
    for (AndPredicate branch : branches) {
      boolean proved = false;
      for (ExpressionSegment predicate : branch.getPredicates()) {
        List<Object> values = values(predicate, family.columns, names, params);
        if (values != null) {
          for (Object value : values) {
            refuseIfFrozen(type, family, column(predicate), value);
          }
          proved = true;
        }
      }
      if (!proved) {
        unproved.add(text(branch));
      }
    }
    if (unproved.size() == branches.size()) {
      throw withoutShardingValue(type, family);
    }
    if (!unproved.isEmpty()) {
      throw unproved(type, family, "the OR branch " + unproved.get(0) + " names no value of " + family.columnList()
          + " (= or IN of literals or parameters)");
    }
  }

  /**
   * A read while a bucket of a family it reads is SWITCHING: accepted when it reads one table (no join, subquery,
   * UNION or WITH) and every OR branch of its WHERE names values of a sharding column (= or IN), whatever their
   * buckets: such a read goes to the nodes the router's map names, which hold the rows throughout the switch. Any other
   * read (a scan) goes to every node, two of which may hold the switching bucket, and is refused.
   */
  private static void auditRead(SQLStatementContext context, SelectStatement select, List<Object> params,
      Map<String, Family> families) {
    families.values().removeIf(f -> f.switching() == null);
    if (families.isEmpty()) {
      return;
    }
    Family family = families.values().iterator().next();
    if (families.size() > 1 || !(select.getFrom().orElse(null) instanceof SimpleTableSegment from)
        || select.getWithSegment().isPresent() || select.getCombine().isPresent()
        || (context instanceof SelectStatementContext s && (s.isContainsSubquery() || s.isContainsJoinQuery()))) {
      throw unprovedScan("SELECT", family, "it reads a join, a subquery, a UNION or a WITH");
    }
    Set<String> names = new HashSet<>(Set.of(family.table));
    from.getAliasName().ifPresent(alias -> names.add(alias.toLowerCase(Locale.ROOT)));
    WhereSegment where = select.getWhere().orElse(null);
    if (where == null) {
      throw unprovedScan("SELECT", family, "it names no value of " + family.columnList());
    }
    for (AndPredicate branch : ExpressionExtractor.extractAndPredicates(where.getExpr())) {
      if (branch.getPredicates().stream().noneMatch(p -> values(p, family.columns, names, params) != null)) {
        throw unprovedScan("SELECT", family, "the OR branch " + text(branch) + " names no value of "
            + family.columnList() + " (= or IN of literals or parameters)");
      }
    }
  }

  private static BucketFrozenException unprovedScan(String type, Family family, String why) {
    GeneBucketShardingAlgorithm.FrozenBuckets f = Objects.requireNonNull(family.switching());
    return new BucketFrozenException(TYPE + ": " + type + " of " + family.table + " cannot be proved to avoid the"
        + " buckets " + BucketMap.formatBuckets(f.switching()) + ", switching to their new node (map version "
        + f.map().version() + "): " + why + "; while the routers follow the switch the bucket's rows are on two"
        + " nodes and a scan could count them twice, so it is refused. Retry in a moment (about one refresh of the"
        + " map), or name the rows by " + family.columnList() + " in every OR branch", f.switching().get(0),
        f.map().version());
  }

  /** Every row of an INSERT: a value of a sharding column of each family table, none in a frozen bucket. */
  private static void auditInsertRows(String type, Map<String, Family> families, List<ShardingCondition> rows) {
    for (Family family : families.values()) {
      if (rows.isEmpty()) {
        throw withoutShardingValue(type, family);
      }
      for (ShardingCondition row : rows) {
        boolean proved = false;
        for (ShardingConditionValue value : row.getValues()) {
          if (value.getTableName().equalsIgnoreCase(family.table)
              && family.columns.contains(value.getColumnName().toLowerCase(Locale.ROOT))
              && value instanceof ListShardingConditionValue<?> list) {
            for (Object v : list.getValues()) {
              refuseIfFrozen(type, family, value.getColumnName(), v);
            }
            proved = true;
          }
        }
        if (!proved) {
          throw withoutShardingValue(type, family);
        }
      }
    }
  }

  private static void refuseIfFrozen(String type, Family family, String column, @Nullable Object value) {
    if (value == null) {
      return; // = NULL matches no row; an INSERT of NULL is refused by routing
    }
    String where = family.table + "." + column;
    for (GeneBucketShardingAlgorithm algorithm : family.algorithms) {
      int bucket = (int) algorithm.gene(where, value);
      BucketMap map = algorithm.map();
      BucketState state = map.state(bucket);
      if (state.refusesWrites()) {
        throw new BucketFrozenException(TYPE + ": bucket " + bucket + (state == BucketState.SWITCHING
            ? " is switching to its new node" : " is frozen while it moves") + " (map version "
            + map.version() + "): " + type + " of " + where + " = " + value + " refused; retry in a few seconds, the"
            + " write then goes to the bucket's new node", bucket, map.version());
      }
    }
  }

  private static BucketFrozenException withoutShardingValue(String type, Family family) {
    GeneBucketShardingAlgorithm.FrozenBuckets f = family.frozen().get(0);
    return new BucketFrozenException(TYPE + ": " + type + " of " + family.table + " without a sharding value may"
        + " touch the frozen buckets " + BucketMap.formatBuckets(f.buckets()) + " (map version "
        + f.map().version() + ") and is refused; retry when the move is done, or name the rows by their sharding"
        + " column", f.buckets().get(0), f.map().version());
  }

  private static BucketFrozenException unproved(String type, Family family, String why) {
    GeneBucketShardingAlgorithm.FrozenBuckets f = family.frozen().get(0);
    return new BucketFrozenException(TYPE + ": " + type + " of " + family.table + " cannot be proved to avoid the"
        + " frozen buckets " + BucketMap.formatBuckets(f.buckets()) + " (map version " + f.map().version() + "): "
        + why + "; it is refused while they move. Retry when the move is done, or name the rows by "
        + family.columnList() + " in every OR branch", f.buckets().get(0), f.map().version());
  }

  /**
   * The values {@code predicate} restricts a sharding column to, or null if it proves nothing: {@code col = v},
   * {@code v = col} or {@code col IN (v, ...)} with every {@code v} a literal or a bound parameter.
   */
  private static @Nullable List<Object> values(ExpressionSegment predicate, Set<String> columns, Set<String> owners,
      List<Object> params) {
    if (predicate instanceof BinaryOperationExpression binary && binary.getOperator().equals("=")) {
      ExpressionSegment value = isColumn(binary.getLeft(), columns, owners) ? binary.getRight()
          : isColumn(binary.getRight(), columns, owners) ? binary.getLeft() : null;
      return value == null ? null : evaluate(List.of(value), params);
    }
    if (predicate instanceof InExpression in && !in.isNot() && isColumn(in.getLeft(), columns, owners)) {
      return evaluate(in.getRight() instanceof ListExpression list ? list.getItems() : List.of(in.getRight()),
          params);
    }
    return null;
  }

  private static String column(ExpressionSegment predicate) {
    if (predicate instanceof InExpression in) {
      return ((ColumnSegment) in.getLeft()).getIdentifier().getValue();
    }
    BinaryOperationExpression binary = (BinaryOperationExpression) predicate;
    return (binary.getLeft() instanceof ColumnSegment c ? c : (ColumnSegment) binary.getRight()).getIdentifier()
        .getValue();
  }

  /** A sharding column of the table written, unqualified or qualified by the table's name or alias. */
  private static boolean isColumn(ExpressionSegment e, Set<String> columns, Set<String> owners) {
    return e instanceof ColumnSegment c && columns.contains(c.getIdentifier().getValue().toLowerCase(Locale.ROOT))
        && c.getOwner().map(o -> owners.contains(o.getIdentifier().getValue().toLowerCase(Locale.ROOT)))
            .orElse(true);
  }

  private static @Nullable List<Object> evaluate(Collection<ExpressionSegment> items, List<Object> params) {
    List<Object> result = new ArrayList<>();
    for (ExpressionSegment item : items) {
      if (item instanceof LiteralExpressionSegment literal) {
        result.add(literal.getLiterals());
      } else if (item instanceof ParameterMarkerExpressionSegment marker
          && marker.getParameterMarkerIndex() < params.size()) {
        result.add(params.get(marker.getParameterMarkerIndex()));
      } else {
        return null; // an expression, a function, a subquery: its value is not known here
      }
    }
    return result;
  }

  private static String text(AndPredicate branch) {
    List<String> parts = new ArrayList<>();
    branch.getPredicates().forEach(p -> parts.add(p.getText()));
    return "'" + String.join(" AND ", parts) + "'";
  }

  /** The table a write changes, lower-case, or null for a join (a multi-table UPDATE or DELETE). */
  private static @Nullable String writtenTable(SQLStatement statement) {
    Object table = statement instanceof InsertStatement insert ? insert.getTable().orElse(null)
        : statement instanceof UpdateStatement update ? update.getTable()
        : ((DeleteStatement) statement).getTable();
    return table instanceof SimpleTableSegment simple
        ? simple.getTableName().getIdentifier().getValue().toLowerCase(Locale.ROOT) : null;
  }

  private static String statementType(SQLStatement statement) {
    return statement instanceof InsertStatement ? "INSERT" : statement instanceof UpdateStatement ? "UPDATE"
        : "DELETE";
  }

  private static Family family(ShardingRule rule, ShardingTable table, String name) {
    List<GeneBucketShardingAlgorithm> algorithms = new ArrayList<>();
    Set<String> columns = new LinkedHashSet<>();
    for (ShardingStrategyConfiguration strategy : new ShardingStrategyConfiguration[] {
        rule.getDatabaseShardingStrategyConfiguration(table), rule.getTableShardingStrategyConfiguration(table)}) {
      if (strategy != null && strategy.getShardingAlgorithmName() != null
          && rule.getShardingAlgorithms().get(strategy.getShardingAlgorithmName())
              instanceof GeneBucketShardingAlgorithm bucket) {
        algorithms.add(bucket);
        String named = strategy instanceof StandardShardingStrategyConfiguration standard
            ? standard.getShardingColumn()
            : strategy instanceof ComplexShardingStrategyConfiguration complex ? complex.getShardingColumns() : null;
        if (named == null || named.isBlank()) {
          named = rule.getDefaultShardingColumn();
        }
        if (named != null) {
          Arrays.stream(named.split(",")).map(c -> c.trim().toLowerCase(Locale.ROOT)).filter(c -> !c.isEmpty())
              .forEach(columns::add);
        }
      }
    }
    return new Family(name, algorithms, columns);
  }

  /** A table routed by {@code GENE_BUCKET}: its algorithms (database and table level) and sharding columns. */
  private record Family(String table, List<GeneBucketShardingAlgorithm> algorithms, Set<String> columns,
      List<GeneBucketShardingAlgorithm.FrozenBuckets> frozen) {
    /**
     * Takes, once per statement, the maps of {@code algorithms} that refuse writes to some bucket, each with those
     * buckets: a router may change an algorithm's map while the statement is audited.
     */
    Family(String table, List<GeneBucketShardingAlgorithm> algorithms, Set<String> columns) {
      this(table, algorithms, columns, algorithms.stream().map(GeneBucketShardingAlgorithm::frozenBuckets)
          .filter(f -> !f.buckets().isEmpty()).toList());
    }

    /** The first of those maps with buckets that refuse scans (SWITCHING), or null. */
    GeneBucketShardingAlgorithm.@Nullable FrozenBuckets switching() {
      return frozen.stream().filter(f -> !f.switching().isEmpty()).findFirst().orElse(null);
    }

    String columnList() {
      return columns.isEmpty() ? "a sharding column (a hint strategy names none)" : String.join(" or ", columns);
    }
  }

  /**
   * The refusal as the {@link SQLException} every JDBC caller gets: SQLState {@value #SQL_STATE}, vendor code
   * {@value #VENDOR_CODE}, the refusal's message, the refusal as its cause.
   *
   * <p>It is thrown as it is, although {@code check} declares no checked exception (issue #38, scenario 10).
   * ShardingSphere 5.5.2 turns an unchecked {@code ShardingSphereSQLException} from an auditor into an
   * {@code SQLException} only on some paths ({@code Statement.executeUpdate(String)}, {@code addBatch(String)},
   * {@code PreparedStatement.execute()}): {@code Statement.execute(String)} in all its forms and
   * {@code PreparedStatement.executeBatch()} let it through unchecked, past retry code and Spring's exception
   * translation, which catch {@code SQLException}. Every one of those paths passes an {@code SQLException} on as it is
   * (its transform engine returns an {@code SQLException} unchanged), so this form is the same on all of them.
   */
  static SQLTransactionRollbackException refusal(GeneIdException refusal) {
    return new SQLTransactionRollbackException(refusal.getMessage(), SQL_STATE, VENDOR_CODE, refusal);
  }

  /** Throws {@code e} without declaring it: the auditor SPI's {@code check} declares no checked exception. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException throwUnchecked(Throwable e) throws E {
    throw (E) e;
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
