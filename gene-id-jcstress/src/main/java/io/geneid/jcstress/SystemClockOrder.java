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
 * Ids of one gene increase across threads, not only within one (#44): the first thread takes an id of a gene and
 * publishes it; a second thread that has seen it, through the system clock's fast path as well, must get a larger
 * id of that gene, whatever reading of the clock it used.
 */
@JCStressTest
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "the second saw the first's id and got a larger one")
@Outcome(id = "2", expect = Expect.ACCEPTABLE, desc = "the second did not see the first's id")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "the second saw the first's id and got one not larger")
@State
public class SystemClockOrder {

  private final GeneSnowflakeGenerator generator = Generators.systemClock(Generators.NARROW);
  private volatile long published;
  private long seen;
  private long second;

  @Actor
  public void first() {
    published = generator.nextId(Generators.GENE);
  }

  @Actor
  public void second() {
    seen = published;
    second = generator.nextId(Generators.GENE);
  }

  @Arbiter
  public void ordered(I_Result r) {
    r.r1 = seen == 0 ? 2 : second > seen ? 1 : 0;
  }
}
