package io.geneid.jcstress;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * The path {@code nextId()} takes in production (#44): the system clock, so that an id of a millisecond under way is
 * issued at the reading the clock thread keeps, and genes spread by each thread's walk. Two threads take three root
 * ids each from a layout of two genes and two ids per millisecond per gene: both walks use both genes, the genes
 * overflow and borrow within the first calls, and every id goes through the gene's compare-and-set from that fast
 * path. No interleaving may issue one id twice.
 */
@JCStressTest
@Outcome(id = "6", expect = Expect.ACCEPTABLE, desc = "six distinct ids")
@Outcome(expect = Expect.FORBIDDEN, desc = "a duplicate id")
@State
public class SystemClockSpread {

  private final GeneSnowflakeGenerator generator = Generators.systemClock(Generators.TWO_GENES);
  private final long[] ids = new long[6];

  @Actor
  public void first() {
    for (int i = 0; i < 3; i++) {
      ids[i] = generator.nextId();
    }
  }

  @Actor
  public void second() {
    for (int i = 3; i < 6; i++) {
      ids[i] = generator.nextId();
    }
  }

  @Arbiter
  public void distinct(I_Result r) {
    r.r1 = Generators.distinct(ids);
  }
}
