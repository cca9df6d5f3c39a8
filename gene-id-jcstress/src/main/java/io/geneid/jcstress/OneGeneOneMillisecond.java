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
 * Two threads take one id each of the same gene in the same millisecond: the compare-and-set on the gene's word
 * must give them two sequence numbers.
 */
@JCStressTest
@Outcome(id = "2", expect = Expect.ACCEPTABLE, desc = "two distinct ids")
@Outcome(id = "1", expect = Expect.FORBIDDEN, desc = "a duplicate id")
@State
public class OneGeneOneMillisecond {

  private final GeneSnowflakeGenerator generator = Generators.generator(() -> Generators.NOW, 10);
  private long a;
  private long b;

  @Actor
  public void first() {
    a = generator.nextId(Generators.GENE);
  }

  @Actor
  public void second() {
    b = generator.nextId(Generators.GENE);
  }

  @Arbiter
  public void distinct(I_Result r) {
    r.r1 = Generators.distinct(a, b);
  }
}
