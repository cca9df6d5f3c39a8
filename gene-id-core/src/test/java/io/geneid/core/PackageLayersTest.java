package io.geneid.core;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The packages of gene-id-core form layers, and the build fails on a cycle between any two of them or on an import
 * across the layers. Each package may use only those listed as below it (docs/core.md, "Packages"):
 * <pre>
 *   settings   (nothing of gene-id)      kebab-case properties read generically; InvalidSettingException
 *   internal   settings                  not API: checks, the scope stack, batches, JVM-wide claims
 *   core       internal, settings        the API: layout, genes, routing, GeneContext, GeneSpread, GeneClock
 *   bucket     core, internal, settings  bucket maps for resharding
 *   segment    core, internal, settings  segment (range) ids
 *   lease      core, internal, settings  the worker-id lease SPI and its protocol
 *   snowflake  everything above but segment and bucket: the engine and the leased generator that drives it
 * </pre>
 */
class PackageLayersTest {

  private static final JavaClasses CORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.geneid.core");

  @Test
  void noPackageCycles() {
    slices().matching("io.geneid.(**)").should().beFreeOfCycles().check(CORE);
  }

  @Test
  void eachPackageUsesOnlyTheLayersBelowIt() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("settings").definedBy("io.geneid.core.settings")
        .layer("internal").definedBy("io.geneid.core.internal")
        .layer("core").definedBy("io.geneid.core")
        .layer("bucket").definedBy("io.geneid.core.bucket")
        .layer("segment").definedBy("io.geneid.core.segment")
        .layer("lease").definedBy("io.geneid.core.lease")
        .layer("snowflake").definedBy("io.geneid.core.snowflake")
        .whereLayer("snowflake").mayNotBeAccessedByAnyLayer()
        .whereLayer("segment").mayNotBeAccessedByAnyLayer()
        .whereLayer("bucket").mayNotBeAccessedByAnyLayer()
        .whereLayer("lease").mayOnlyBeAccessedByLayers("snowflake")
        .whereLayer("core").mayOnlyBeAccessedByLayers("bucket", "segment", "lease", "snowflake")
        .whereLayer("internal").mayOnlyBeAccessedByLayers("core", "bucket", "segment", "lease", "snowflake")
        .check(CORE);
  }
}
