package io.geneid.core.snowflake;

import io.geneid.core.GeneClock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GeneClockTest {

  @Test
  void systemClockFollowsTheWallClockAndNeverGoesBack() {
    GeneClock clock = GeneClock.system();
    long wall = System.currentTimeMillis();
    assertThat(clock.currentTimeMillis()).isBetween(wall - 1000, wall + 1000);
    long last = clock.currentTimeMillis();
    for (int i = 0; i < 1_000_000; i++) {
      long now = clock.currentTimeMillis();
      assertThat(now).isGreaterThanOrEqualTo(last);
      last = now;
    }
    assertThat(GeneClock.wall().currentTimeMillis()).isBetween(wall, wall + 60_000);
    assertThat(clock).hasToString("GeneClock.system()");
  }
}
