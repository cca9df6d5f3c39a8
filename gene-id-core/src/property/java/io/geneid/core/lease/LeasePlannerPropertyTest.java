package io.geneid.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.lease.LeasePlanner.Candidate;
import io.geneid.core.lease.LeasePlanner.Claim;
import io.geneid.core.lease.LeasePlanner.Mark;
import io.geneid.core.lease.LeasePlanner.Plan;
import io.geneid.core.lease.LeasePlanner.Slot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The planner's rules, over arbitrary pools: never a held id, never a mark below what a holder may have issued. */
class LeasePlannerPropertyTest {

  @Provide
  Arbitrary<List<Slot>> slots() {
    Arbitrary<Mark> marks = Combinators.combine(Arbitraries.longs().between(0, 3_000),
        Arbitraries.of(true, false), Arbitraries.longs().between(0, 50)).as(Mark::new);
    Arbitrary<Claim> claims = Combinators.combine(Arbitraries.of("a", "b", "c"),
        Arbitraries.longs().between(0, 3_000)).as(Claim::new);
    Arbitrary<Slot> slot = Combinators.combine(Arbitraries.longs().between(0, 20), marks.injectNull(0.3),
        claims.injectNull(0.5)).as(Slot::new);
    return slot.list().ofMaxSize(30);
  }

  @Property
  void everyCandidateIsFreeInThePoolAndOnlyOnce(@ForAll("slots") List<Slot> slots,
      @ForAll @LongRange(min = 0, max = 3_000) long now, @ForAll @IntRange(min = 0, max = 10) int lo,
      @ForAll @IntRange(min = 0, max = 15) int width, @ForAll @LongRange(min = 0, max = 100) long slack) {
    long hi = lo + width;
    Plan p = LeasePlanner.plan(lo, hi, now, slack, slots);
    Set<Long> seen = new HashSet<>();
    Set<Long> held = new HashSet<>();
    p.holders().forEach(h -> held.add(h.workerId()));
    List<Slot> first = firstPerId(slots);
    for (Candidate c : p.candidates()) {
      assertThat(c.workerId()).isBetween((long) lo, hi);
      assertThat(seen.add(c.workerId())).as("offered twice: %s", c).isTrue();
      assertThat(held).doesNotContain(c.workerId());
      Slot s = first.stream().filter(x -> x.workerId() == c.workerId()).findFirst().orElse(null);
      if (s == null) {
        assertThat(c.fresh()).isTrue();
        assertThat(c.previousMark()).isZero();
        continue;
      }
      assertThat(LeasePlanner.held(s, now)).isFalse();
      Mark m = s.record();
      assertThat(m).isNotNull();
      // never below the recorded mark; above store now + slack unless released with its exact mark
      assertThat(c.previousMark()).isGreaterThanOrEqualTo(m.mark());
      if (!m.released() || s.claim() != null) {
        assertThat(c.previousMark()).isGreaterThanOrEqualTo(now + slack);
      } else {
        assertThat(c.previousMark()).isEqualTo(m.mark());
      }
    }
    // every worker id of the pool is offered or held, unless fresh ids were capped
    if (p.candidates().size() < LeasePlanner.FRESH_PER_PLAN) {
      for (long id = lo; id <= hi; id++) {
        assertThat(seen.contains(id) || held.contains(id)).as("worker id %d neither offered nor held", id).isTrue();
      }
    }
  }

  @Property
  void freshIdsComeFirstThenOlderBeforeNewer(@ForAll("slots") List<Slot> slots,
      @ForAll @LongRange(min = 0, max = 3_000) long now) {
    Plan p = LeasePlanner.plan(0, 20, now, 10, slots);
    boolean reused = false;
    long lastUsed = Long.MIN_VALUE;
    for (Candidate c : p.candidates()) {
      if (c.fresh()) {
        assertThat(reused).as("a fresh id after a reused one").isFalse();
        continue;
      }
      reused = true;
      long used = c.slot().record().lastUsed();
      assertThat(used).isGreaterThanOrEqualTo(lastUsed);
      lastUsed = used;
    }
  }

  private static List<Slot> firstPerId(List<Slot> slots) {
    List<Slot> out = new ArrayList<>();
    Set<Long> ids = new HashSet<>();
    for (Slot s : slots) {
      if ((s.record() != null || s.claim() != null) && ids.add(s.workerId())) {
        out.add(s);
      }
    }
    return out;
  }
}
