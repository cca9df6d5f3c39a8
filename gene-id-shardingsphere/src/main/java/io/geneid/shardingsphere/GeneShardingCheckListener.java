package io.geneid.shardingsphere;

import java.util.List;
import java.util.Optional;
import org.apache.shardingsphere.infra.metadata.database.ShardingSphereDatabase;
import org.apache.shardingsphere.mode.manager.ContextManager;
import org.apache.shardingsphere.mode.manager.listener.ContextManagerLifecycleListener;
import org.apache.shardingsphere.sharding.rule.ShardingRule;

/**
 * Refuses a ShardingSphere data source whose sharding rule disagrees with itself on the gene bits (a key generator
 * issuing ids with other {@code gene-bits} than the {@code GENE_MOD}, {@code GENE_MOD_AUTO} or {@code GENE_BUCKET}
 * algorithms of its table read, or a database and a table algorithm that read different ones), so that a plain
 * YAML file stops {@code YamlShardingSphereDataSourceFactory.createDataSource} with the lines the Spring starter
 * reports, before a child row lands away from its parent. The other findings of {@link GeneShardingCheck} (nodes no
 * gene reaches, the ids of an application's own generator) are left to it and to the starter: they depend on what
 * the application means or does.
 *
 * <p>ShardingSphere 5.5.2 calls every {@code ContextManagerLifecycleListener} once the rules of every database are
 * built, inside the constructor of the data source's context manager, and lets an exception through. The other
 * places that see a rule as it is built take one service per rule type (a second
 * {@code RuleConfigurationChecker} for the sharding rule would replace ShardingSphere's own). The system property
 * {@code gene-id.sharding-check=false} turns this off, and the Spring starter's check with it. Registered as a
 * ShardingSphere service; not an API.
 */
public final class GeneShardingCheckListener implements ContextManagerLifecycleListener {

  /** The system property that turns the check off when {@code false}; the Spring starter's property of that name. */
  static final String SWITCH = "gene-id.sharding-check";

  /** Called by ShardingSphere. */
  public GeneShardingCheckListener() {
  }

  @Override
  public void onInitialized(ContextManager contextManager) {
    if ("false".equalsIgnoreCase(System.getProperty(SWITCH, "").trim())) {
      return;
    }
    for (ShardingSphereDatabase database : contextManager.getMetaDataContexts().getMetaData().getAllDatabases()) {
      Optional<ShardingRule> rule = database.getRuleMetaData().findSingleRule(ShardingRule.class);
      List<String> problems = rule.map(GeneShardingCheck::geneBitsProblems).orElse(List.of());
      if (!problems.isEmpty()) {
        Refused refused = new Refused("the ShardingSphere data source of database '" + database.getName()
            + "' has gene sharding mistakes (set the system property " + SWITCH + "=false to start anyway):\n  - "
            + String.join("\n  - ", problems), problems);
        try {
          contextManager.close(); // its executor and repository; the data sources are the caller's or die with it
        } catch (RuntimeException e) {
          refused.addSuppressed(e);
        }
        throw refused;
      }
    }
  }

  @Override
  public void onDestroyed(ContextManager contextManager) {
  }

  /** The problems a data source was refused for, if {@code failure} or one of its causes is that refusal. */
  static Optional<List<String>> refused(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof Refused) {
        return Optional.of(((Refused) t).problems);
      }
    }
    return Optional.empty();
  }

  /** A data source refused: the message, and the problems for {@link GeneShardingCheck#problems}. */
  private static final class Refused extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    Refused(String message, List<String> problems) {
      super(message);
      this.problems = List.copyOf(problems);
    }
  }
}
