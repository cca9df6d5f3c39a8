package io.geneid.cli;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneRouting;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStore.MoveProgress;
import io.geneid.core.bucket.BucketMapStore.RouterHeartbeat;
import io.geneid.core.bucket.BucketMove;
import io.geneid.core.bucket.BucketPlan;
import io.geneid.core.bucket.BucketPlanner;
import io.geneid.core.bucket.BucketState;
import io.geneid.core.settings.SettingsReader;
import io.geneid.jdbc.JdbcBucketMover;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gene-id reshard move}, {@code cleanup} and {@code status}: the mover ({@link JdbcBucketMover}) on the
 * command line, over the data sources, table family and map store of the application's ShardingSphere YAML.
 */
@Command(name = "move", mixinStandardHelpOptions = true,
    description = {"Moves buckets to their new databases, one at a time: freeze, wait for the routers, copy in"
        + " batches, verify every column, switch. Progress is recorded in the map store; run it again after an"
        + " interruption and it resumes.",
        "The data sources and the tables come from the application's ShardingSphere YAML (--config): the tables"
            + " whose database strategy uses --algorithm, keyed by its sharding column."})
final class ReshardMove implements Callable<Integer> {

  /** The options that name the YAML and the map store, shared by move, cleanup and status. */
  static final class StoreOptions {
    @Option(names = "--config", required = true, paramLabel = "<file>",
        description = "The application's ShardingSphere YAML (data sources, tables, algorithms).")
    Path config = Path.of("");

    @Option(names = "--algorithm", required = true, paramLabel = "<name>",
        description = "The GENE_BUCKET (or GENE_MOD) algorithm of the database level whose buckets move.")
    String algorithm = "";

    @Option(names = "--map-store-url", paramLabel = "<jdbc url>", description = "The map store's JDBC URL; default:"
        + " the algorithm's map-store-url property.")
    @Nullable String mapStoreUrl;

    @Option(names = "--map-name", paramLabel = "<name>", description = "The map's name in the store; default: the"
        + " algorithm's map-name property, else the algorithm's name.")
    @Nullable String mapName;

    @Option(names = "--map-store-table", paramLabel = "<table>", description = "The map store's table; default:"
        + " the algorithm's map-store-table property, else gene_id_bucket_map.")
    @Nullable String mapStoreTable;

    ReshardSetup open() {
      return ReshardSetup.open(config, algorithm, mapStoreUrl, mapName, mapStoreTable);
    }
  }

  @CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  CommandLine.Model.CommandSpec spec;

  @Mixin
  StoreOptions store = new StoreOptions();

  @Option(names = "--to", paramLabel = "<M>", description = "Grow (or shrink) to M even targets, as reshard plan"
      + " shows.")
  @Nullable String to;

  @Option(names = "--bucket-map", paramLabel = "<map>", description = "Instead of --to: the new map itself.")
  @Nullable String bucketMap;

  @Option(names = "--batch-size", paramLabel = "<rows>", description = "Rows per copied batch; default 500.")
  String batchSize = "500";

  @Option(names = "--batch-pause", paramLabel = "<duration>", description = "A pause after each batch, to spare"
      + " the databases; default 0.")
  String batchPause = "0ms";

  @Option(names = "--settle", paramLabel = "<duration>", description = "After the routers have seen a freeze, how"
      + " long to wait for writes already past the audit; default 1s.")
  String settle = "1s";

  @Option(names = "--transaction-wait", paramLabel = "<duration>", description = "How long to wait for the"
      + " transactions open on the old database since before a freeze to end; past it the move stops, naming the"
      + " oldest; default 30s.")
  String transactionWait = "30s";

  @Option(names = "--router-wait", paramLabel = "<duration>", description = "How long to wait for the live"
      + " routers to see a change; default 30s.")
  String routerWait = "30s";

  @Option(names = "--live-window", paramLabel = "<duration>", description = "A router silent for longer is not"
      + " waited for; at least the routers' stale-after; default 30s.")
  String liveWindow = "30s";

  @Option(names = "--progress-every", paramLabel = "<duration>", description = "How often to print a progress"
      + " line while a bucket copies; default 1s.")
  String progressEvery = "1s";

  @Override
  public Integer call() {
    int exclusive = (to != null ? 1 : 0) + (bucketMap != null ? 1 : 0);
    if (exclusive != 1) {
      throw new BadInputException("give the new map by exactly one of --to <M> and --bucket-map <map>, but "
          + (exclusive == 0 ? "none was" : "both were") + " given");
    }
    SettingsReader options = SettingsReader.of(Map.of("batch-size", batchSize, "batch-pause", batchPause,
        "settle", settle, "router-wait", routerWait, "transaction-wait", transactionWait, "live-window", liveWindow, "progress-every", progressEvery))
        .named(k -> "--" + k);
    int rows = options.intValue("batch-size", 1, 100_000, 500);
    Duration pause = options.duration("batch-pause", Duration.ZERO, Duration.ofMinutes(1), Duration.ZERO);
    Duration settleFor = options.duration("settle", Duration.ZERO, Duration.ofHours(1), Duration.ofSeconds(1));
    Duration wait = options.duration("router-wait", Duration.ofMillis(1), Duration.ofHours(1), Duration.ZERO);
    Duration txWait = options.duration("transaction-wait", Duration.ofMillis(1), Duration.ofHours(1),
        Duration.ZERO);
    Duration live = options.duration("live-window", Duration.ofMillis(1), Duration.ofHours(1), Duration.ZERO);
    long every = options.duration("progress-every", Duration.ZERO, Duration.ofHours(1), Duration.ZERO).toNanos();
    PrintWriter out = spec.commandLine().getOut();
    try (ReshardSetup setup = store.open()) {
      out.println(Text.row("map store", setup.storeDescription()));
      out.println(Text.row("family", family(setup)));
      BucketMap current = setup.store().load(setup.mapName()).orElse(null);
      if (current == null) {
        BucketMap first = setup.family.map().withVersion(1);
        if (!setup.store().compareAndSet(setup.mapName(), -1, first)) {
          throw new GeneIdException("map '" + setup.mapName() + "' was stored by someone else"
              + " meanwhile; is another mover running?");
        }
        out.println(Text.row("stored", "the map of '" + store.algorithm + "' in " + store.config.getFileName()
            + " as version 1 (the store had none)"));
        current = first;
      }
      if (current.geneBits() != setup.family.map().geneBits()) {
        throw new BadInputException("map '" + setup.mapName() + "' in the store has gene-bits " + current.geneBits()
            + " but '" + store.algorithm + "' in " + store.config + " has " + setup.family.map().geneBits()
            + ": is --map-name the application's map?");
      }
      BucketMap next = next(setup, current, out);
      List<BucketMove> moves = new ArrayList<>();
      TreeSet<Integer> used = new TreeSet<>();
      for (int b = 0; b < current.bucketCount(); b++) {
        if (current.target(b) != next.target(b)) {
          moves.add(new BucketMove(b, current.target(b), next.target(b)));
          used.add(current.target(b));
          used.add(next.target(b));
        }
      }
      out.println(Text.row("current map", ReshardCommand.Plan.describe(current)));
      out.println(Text.row("new map", next.targetCount() + " targets: " + next.format()));
      List<Integer> frozen = current.bucketsIn(BucketState.FROZEN);
      List<Integer> switching = current.bucketsIn(BucketState.SWITCHING);
      List<Integer> moved = current.bucketsIn(BucketState.MOVED);
      if (!frozen.isEmpty() || !switching.isEmpty() || !moved.isEmpty()) {
        out.println(Text.row("resuming", (frozen.isEmpty() ? "" : "bucket " + BucketMap.formatBuckets(frozen)
            + " FROZEN by an interrupted run continues; ") + (switching.isEmpty() ? "" : "the switch of bucket "
            + BucketMap.formatBuckets(switching) + " an interrupted run began is finished first; ") + moved.size()
            + " bucket" + (moved.size() == 1 ? "" : "s")
            + " already MOVED (not yet cleaned up)"));
      }
      out.println(Text.row("moves", moves.size() + " of " + current.bucketCount() + " buckets"));
      Map<Integer, DataSource> targets = new LinkedHashMap<>();
      for (int index : used) {
        out.println(Text.row("    target " + index, setup.family.dataSourceOf(index)));
        targets.put(index, setup.target(index));
      }
      warnWithoutRouters(setup, live, out);
      if (moves.isEmpty()) {
        out.println(Text.row("done", "nothing to move: the stored map is the new map"));
        return 0;
      }
      long[] lastPrint = {System.nanoTime()};
      int[] lastDone = {-1}; // the first record is where this run starts (an interrupted run's count)
      JdbcBucketMover mover = JdbcBucketMover.builder(setup.store(), setup.mapName()).targets(targets)
          .tables(setup.moverTables()).batchSize(rows).batchPause(pause).settle(settleFor).routerWait(wait)
          .transactionWait(txWait).liveWindow(live).progressListener(p -> {
            BucketMove m = p.bucket();
            String which = m == null ? "" : " bucket " + m.bucket() + " (" + m.from() + " -> " + m.to() + ")";
            if (lastDone[0] < 0) {
              lastDone[0] = p.recorded().bucketsDone();
            } else if (p.recorded().bucketsDone() > lastDone[0]) {
              lastDone[0] = p.recorded().bucketsDone();
              out.println(Text.row("moved" + which, p.describe()));
              lastPrint[0] = System.nanoTime();
            } else if (p.recorded().rowsCopied() > 0 && System.nanoTime() - lastPrint[0] >= every) {
              out.println(Text.row("copying" + which, p.describe()));
              lastPrint[0] = System.nanoTime();
            }
            out.flush();
          }).build();
      List<JdbcBucketMover.MoveResult> results = mover.moveTo(next);
      long copied = results.stream().mapToLong(JdbcBucketMover.MoveResult::rowsCopied).sum();
      long longest = results.stream().mapToLong(r -> r.frozenFor().toMillis()).max().orElse(0);
      BucketMap after = setup.store().load(setup.mapName()).orElseThrow();
      MoveProgress whole = setup.store().progress(setup.mapName()).orElseThrow();
      out.println(Text.row("done", whole.bucketsDone() + " buckets moved, " + whole.rowsCopied() + " rows copied"
          + (whole.bucketsDone() == results.size() ? "" : " (" + results.size() + " buckets, " + copied
              + " rows by this run)") + ", longest freeze " + longest + " ms; map version " + after.version()));
      out.println(Text.row("next", "gene-id reshard cleanup deletes the moved rows from their old databases"));
      out.println(Text.row("yaml", "type: GENE_BUCKET, props: {gene-bits: " + after.geneBits() + ", bucket-map: \""
          + after.format() + "\"}"));
      return 0;
    }
  }

  /**
   * The new map: {@code --bucket-map}, or the plan to {@code --to} targets. The map a run moves to is kept in the
   * store under {@code <map name>.next}; while the last move is unfinished, a run with the same {@code --to} takes
   * that one again rather than planning from a half-moved map (which would pick other buckets than the first run).
   */
  private BucketMap next(ReshardSetup setup, BucketMap current, PrintWriter out) {
    String pendingName = setup.mapName() + ".next";
    Optional<BucketMap> pending = setup.store().load(pendingName);
    BucketMap next;
    try {
      if (bucketMap != null) {
        next = BucketMap.parse(current.geneBits(), bucketMap);
      } else {
        long m = Ids.wholeNumber("to", String.valueOf(to));
        if (m < 1 || m > current.bucketCount()) {
          throw new BadInputException("--to must be in [1, " + current.bucketCount() + "] (2^gene-bits = "
              + current.bucketCount() + " buckets) but was " + to);
        }
        Optional<MoveProgress> last = setup.store().progress(setup.mapName());
        if (pending.isPresent() && last.isPresent() && last.get().bucketsDone() < last.get().bucketsTotal()
            && pending.get().targetCount() == m && pending.get().geneBits() == current.geneBits()) {
          out.println(Text.row("plan", "the interrupted run's, kept in the store as '" + pendingName + "'"));
          next = pending.get();
        } else {
          next = resumePlan(current, (int) m);
        }
      }
    } catch (IllegalArgumentException e) {
      throw new BadInputException(e.getMessage());
    }
    if (pending.isEmpty() || !Arrays.equals(pending.get().targets(), next.targets())) {
      long version = pending.map(BucketMap::version).orElse(0L);
      if (!setup.store().compareAndSet(pendingName, pending.isEmpty() ? -1 : version, next.withVersion(version + 1))) {
        throw new GeneIdException("map '" + pendingName + "' changed meanwhile; is another mover"
            + " running?");
      }
    }
    return next.withVersion(current.version() + 1);
  }

  /**
   * {@link BucketPlanner#plan}, except that a bucket FROZEN by an interrupted run is moved: if the plan keeps it,
   * it takes the place of a bucket the plan moves from the same target to the same place, so the quotas and the
   * number of moves stay those of the plan.
   */
  static BucketMap resumePlan(BucketMap current, int targetCount) {
    BucketPlan plan = BucketPlanner.plan(current, targetCount);
    List<BucketMove> planned = plan.moves();
    int[] targets = plan.next().targets();
    for (int f : current.bucketsIn(BucketState.FROZEN)) {
      if (targets[f] != current.target(f)) {
        continue;
      }
      for (BucketMove move : planned) {
        int b = move.bucket();
        if (move.from() == current.target(f) && current.state(b) != BucketState.FROZEN
            && targets[b] != current.target(b)) {
          targets[f] = move.to();
          targets[b] = move.from();
          break;
        }
      }
    }
    return BucketMap.of(current.geneBits(), targets).withVersion(current.version() + 1);
  }

  static String family(ReshardSetup setup) {
    StringJoiner tables = new StringJoiner(", ");
    for (ShardingConfig.FamilyTable t : setup.family.tables()) {
      tables.add(t.name() + " (key " + t.keyColumn() + ", table " + t.tableLevel() + (t.algorithm().equals(
          setup.family.algorithm()) ? "" : ", by '" + t.algorithm() + "'") + ")");
    }
    return tables.toString();
  }

  private static void warnWithoutRouters(ReshardSetup setup, Duration live, PrintWriter out) {
    long alive = setup.store().liveRouters(setup.mapName(), live).size(); // by the store's clock
    if (alive == 0) {
      out.println(Text.row("warning", "no application routes with map '" + setup.mapName() + "' (no router"
          + " heartbeat within " + live.toMillis() + " ms): nothing refuses writes to a frozen bucket, so stop"
          + " writes, or let the applications follow the map store, before moving"));
    } else {
      out.println(Text.row("routers", alive + " live"));
    }
  }

  /** {@code gene-id reshard cleanup}: deletes the set-aside rows of MOVED buckets from their old databases. */
  @Command(name = "cleanup", mixinStandardHelpOptions = true,
      description = "Deletes the rows of every MOVED bucket that the move set aside on the databases it left"
          + " (<table>_gid_aside), and marks it NORMAL. Run it"
          + " once the move is finished and the applications route with the new map.")
  static final class Cleanup implements Callable<Integer> {

    @CommandLine.Spec
    @SuppressWarnings("NullAway.Init")
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (ReshardSetup setup = store.open()) {
        out.println(Text.row("map store", setup.storeDescription()));
        out.println(Text.row("family", family(setup)));
        BucketMap map = setup.store().load(setup.mapName()).orElseThrow(() -> new BadInputException("the store has"
            + " no map '" + setup.mapName() + "': nothing was moved"));
        Optional<MoveProgress> progress = setup.store().progress(setup.mapName());
        if (progress.isPresent() && progress.get().bucketsDone() < progress.get().bucketsTotal()) {
          throw new BadInputException("the last move of map '" + setup.mapName() + "' is unfinished (buckets "
              + progress.get().bucketsDone() + "/" + progress.get().bucketsTotal() + "): run reshard move again to"
              + " finish it first");
        }
        List<Integer> moved = map.bucketsIn(BucketState.MOVED);
        Map<Integer, DataSource> targets = new LinkedHashMap<>();
        for (String name : setup.family.dataSources().keySet()) {
          int index = GeneRouting.suffix(name);
          if (index >= 0) {
            targets.put(index, setup.target(index));
          }
        }
        long deleted = JdbcBucketMover.builder(setup.store(), setup.mapName()).targets(targets)
            .tables(setup.moverTables()).build().cleanup("gene-id reshard cleanup");
        out.println(Text.row("cleanup", deleted + " rows of " + moved.size() + " moved bucket"
            + (moved.size() == 1 ? "" : "s") + " deleted from their old databases " + targets.keySet()
            + "; map version " + setup.store().load(setup.mapName()).orElseThrow().version()));
        return 0;
      }
    }
  }

  /** {@code gene-id reshard status}: the stored map, its buckets' states, the routers and the last move. */
  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Shows the stored map, its buckets' states, the routers' versions and the last move's progress.")
  static final class Status implements Callable<Integer> {

    @CommandLine.Spec
    @SuppressWarnings("NullAway.Init")
    CommandLine.Model.CommandSpec spec;

    @CommandLine.ParentCommand
    @SuppressWarnings("NullAway.Init")
    ReshardCommand reshard;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      long now = reshard.cli.clock().millis();
      try (ReshardSetup setup = store.open()) {
        out.println(Text.row("map store", setup.storeDescription()));
        Optional<BucketMap> stored = setup.store().load(setup.mapName());
        if (stored.isEmpty()) {
          out.println(Text.row("map", "none stored yet; the YAML's is " + ReshardCommand.Plan.describe(
              setup.family.map())));
        } else {
          BucketMap map = stored.get();
          out.println(Text.row("map", ReshardCommand.Plan.describe(map)));
          for (BucketState state : BucketState.values()) {
            List<Integer> in = map.bucketsIn(state);
            out.println(Text.row("    " + state, in.size() + (in.isEmpty() || state == BucketState.NORMAL ? ""
                : ": " + BucketMap.formatBuckets(in))));
          }
        }
        List<RouterHeartbeat> routers = setup.store().routers(setup.mapName());
        out.println(Text.row("routers", routers.isEmpty() ? "none has reported" : routers.size() + ""));
        long storeNow = routers.isEmpty() ? now : setup.store().nowMillis(setup.mapName()); // heartbeats' clock
        for (RouterHeartbeat r : routers) {
          out.println(Text.row("    " + r.routerId(), "version " + r.version() + ", seen "
              + ago(storeNow, r.atMillis())));
        }
        Optional<MoveProgress> progress = setup.store().progress(setup.mapName());
        if (progress.isEmpty()) {
          out.println(Text.row("last move", "none recorded"));
        } else {
          MoveProgress p = progress.get();
          boolean done = p.bucketsDone() == p.bucketsTotal();
          out.println(Text.row("last move", (done ? "finished: " : "unfinished: ")
              + JdbcBucketMover.Progress.of(p, null).describe()));
          out.println(Text.row("    started", Text.utc(Instant.ofEpochMilli(p.startedAtMillis()))));
          out.println(Text.row("    updated", Text.utc(Instant.ofEpochMilli(p.updatedAtMillis())) + " ("
              + ago(now, p.updatedAtMillis()) + ", map version " + p.targetVersion() + ")"));
          if (!done) {
            out.println(Text.row("    to resume", "run gene-id reshard move again with the same --to or"
                + " --bucket-map"));
          }
        }
        return 0;
      }
    }

    private static String ago(long now, long then) {
      return JdbcBucketMover.Progress.duration(Duration.ofMillis(Math.max(0, now - then))) + " ago";
    }
  }
}
