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
 * Two threads take three ids each of one gene while the clock stands still, with two ids per millisecond: the gene
 * overflows its sequence twice and borrows the next milliseconds. No interleaving may issue one id twice.
 */
@JCStressTest
@Outcome(id = "6", expect = Expect.ACCEPTABLE, desc = "six distinct ids")
@Outcome(expect = Expect.FORBIDDEN, desc = "a duplicate id")
@State
public class BorrowedMilliseconds {

  private final GeneSnowflakeGenerator generator = Generators.generator(() -> Generators.NOW, 60_000);
  private final long[] ids = new long[6];

  @Actor
  public void first() {
    for (int i = 0; i < 3; i++) {
      ids[i] = generator.nextId(Generators.GENE);
    }
  }

  @Actor
  public void second() {
    for (int i = 3; i < 6; i++) {
      ids[i] = generator.nextId(Generators.GENE);
    }
  }

  @Arbiter
  public void distinct(I_Result r) {
    r.r1 = Generators.distinct(ids);
  }
}
