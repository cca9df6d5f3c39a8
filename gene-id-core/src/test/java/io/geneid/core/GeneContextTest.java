package io.geneid.core;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.testing.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GeneContextTest {

  private final GeneSnowflakeGenerator g = GeneSnowflakeGenerator.builder().workerId(5)
      .clock(ManualClock.atDefaultEpochPlusDays(100).tickEvery(100)).buildUnshared();

  @AfterEach
  void noScopeLeaks() {
    assertThat(GeneContext.isActive()).isFalse();
  }

  @Test
  void scopeGivesNextIdTheParentsGene() {
    long order = 1_000_003L;
    try (var scope = GeneContext.inherit(order)) {
      assertThat(GeneContext.isActive()).isTrue();
      for (int i = 0; i < 10; i++) {
        assertThat(g.getGene(g.nextId())).isEqualTo(order & 63);
      }
    }
    assertThat(GeneContext.isActive()).isFalse();
  }

  @Test
  void scopesNestAndRestoreTheOuterOne() {
    try (var outer = GeneContext.inherit(1L)) {
      try (var inner = GeneContext.inherit("tenant-a")) {
        assertThat(g.getGene(g.nextId())).isEqualTo(g.layout().geneOf("tenant-a"));
      }
      assertThat(g.getGene(g.nextId())).isEqualTo(1);
    }
  }

  @Test
  void lambdaForms() {
    long id = GeneContext.call(130L, g::nextId);
    assertThat(g.getGene(id)).isEqualTo(2);
    long[] box = new long[1];
    GeneContext.run(131L, () -> box[0] = g.nextId());
    assertThat(g.getGene(box[0])).isEqualTo(3);
  }

  @Test
  void explicitGeneIgnoresTheScope() {
    try (var scope = GeneContext.inherit(1L)) {
      assertThat(g.getGene(g.nextId(9))).isEqualTo(9);
      assertThat(g.getGene(g.nextIdFor(10L))).isEqualTo(10);
    }
  }

  @Test
  void scopeIsPerThread() throws Exception {
    try (var scope = GeneContext.inherit(1L)) {
      boolean otherThreadSees = CompletableFuture.supplyAsync(GeneContext::isActive).get();
      assertThat(otherThreadSees).isFalse();
    }
  }

  @Test
  void eachScopeHandsOutOneKeyPerIdInOrder() {
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L, "x", 3))) {
      assertThat(g.getGene(g.nextId())).isEqualTo(1);
      assertThat(g.getGene(g.nextId())).isEqualTo(2);
      assertThat(g.getGene(g.nextId())).isEqualTo(g.layout().geneOf("x"));
      assertThat(g.getGene(g.nextId())).isEqualTo(3);
      assertThatThrownBy(g::nextId).isInstanceOf(IllegalStateException.class)
          .hasMessage("GeneContext scope holds 4 parent keys but id number 5 was requested");
    }
  }

  @Test
  void eachScopeWithKeysLeftOverFailsOnClose() {
    var scope = GeneContext.inheritEach(List.of(1L, 2L, 3L));
    g.nextId();
    assertThatThrownBy(scope::close).isInstanceOf(IllegalStateException.class)
        .hasMessage("GeneContext scope holds 3 parent keys but 1 ids were generated");
    assertThat(GeneContext.isActive()).isFalse(); // restored anyway
  }

  @Test
  void badKeysAreRefused() {
    assertThatThrownBy(() -> GeneContext.inheritEach(List.of()))
        .hasMessage("parentKeys must not be empty");
    assertThatThrownBy(() -> GeneContext.inheritEach(java.util.Arrays.asList(1L, null)))
        .hasMessage("parentKeys[1] must not be null");
    try (var scope = GeneContext.inherit(2.5d)) {
      assertThatThrownBy(g::nextId)
          .hasMessage("parent key must be a whole number, a String or a UUID but was java.lang.Double 2.5");
    }
  }

  @Test
  void scopesCloseInnermostFirst() {
    var outer = GeneContext.inherit(1L);
    var inner = GeneContext.inherit(2L);
    assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class)
        .hasMessage("GeneContext scopes must be closed innermost first");
    inner.close();
    outer.close();
  }
}
