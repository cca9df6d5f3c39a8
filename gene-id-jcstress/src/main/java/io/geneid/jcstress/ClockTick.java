package io.geneid.jcstress;

import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Two threads take two ids each of one gene while the second moves the clock one millisecond on, and then one back
 * (a step back smaller than {@code maxBorrowMillis}, absorbed by borrowing): a thread that read the old time and one
 * that read the new must never meet on one id.
 */
@JCStressTest
@Outcome(id = "4", expect = Expect.ACCEPTABLE, desc = "four distinct ids")
@Outcome(expect = Expect.FORBIDDEN, desc = "a duplicate id")
@State
public class ClockTick {

  private final AtomicLong now = new AtomicLong(Generators.NOW);
  private final GeneSnowflakeGenerator generator = Generators.generator(now::get, 10);
  private final long[] ids = new long[4];

  @Actor
  public void first() {
    ids[0] = generator.nextId(Generators.GENE);
    ids[1] = generator.nextId(Generators.GENE);
  }

  @Actor
  public void second() {
    now.incrementAndGet();
    ids[2] = generator.nextId(Generators.GENE);
    now.decrementAndGet();
    ids[3] = generator.nextId(Generators.GENE);
  }

  @Arbiter
  public void distinct(I_Result r) {
    r.r1 = Generators.distinct(ids);
  }
}
