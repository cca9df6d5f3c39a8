package io.geneid.core.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneRouting;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketMapTest {

  @Test
  void modMapsFormatAsSteppedRanges() {
    assertThat(BucketMap.ofMod(6, 2, 1).format()).isEqualTo("0=0-62/2; 1=1-63/2");
    assertThat(BucketMap.ofMod(6, 4, 1).format()).isEqualTo("0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4");
    assertThat(BucketMap.ofMod(3, 2, 2).format()).isEqualTo("0=0-1,4-5; 1=2-3,6-7");
    assertThat(BucketMap.ofMod(0, 1, 1).format()).isEqualTo("0=0");
  }

  @Test
  void ofModRoutesAsGeneRouting() {
    GeneRouting routing = new GeneRouting(3, 2, 5);
    BucketMap map = BucketMap.ofMod(5, 3, 2);
    for (int gene = 0; gene < 32; gene++) {
      assertThat(map.target(gene)).isEqualTo(routing.index(gene));
    }
    assertThat(map.targetCount()).isEqualTo(3);
    assertThat(map.version()).isZero();
    assertThat(map.bucketsIn(BucketState.NORMAL)).hasSize(32);
  }

  @Test
  void parsesRangesStepsAndSingles() {
    BucketMap map = BucketMap.parse(3, " 1 = 4-7 ;0=0, 1,2-3/1 ");
    assertThat(map.targets()).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
    assertThat(map.format()).isEqualTo("0=0-3; 1=4-7");
    assertThat(BucketMap.parse(3, "0=0-6/3,2; 1=1,4-5,7")).satisfies(m ->
        assertThat(m.targets()).containsExactly(0, 1, 0, 0, 1, 1, 0, 1));
  }

  @Test
  void textRoundTrips() {
    BucketMap map = BucketMap.of(4, new int[] {0, 2, 2, 1, 0, 0, 0, 1, 3, 3, 3, 3, 0, 2, 1, 1});
    assertThat(BucketMap.parse(4, map.format())).isEqualTo(map);
  }

  @Test
  void parseErrorsNameThePart() {
    assertThatThrownBy(() -> BucketMap.parse(3, "0=0-3; 1=3-7"))
        .hasMessage("bucket-map gives bucket 3 twice: to target 0 and to target 1");
    assertThatThrownBy(() -> BucketMap.parse(3, "0=0-3; 1=5-6"))
        .hasMessage("bucket-map gives no target to 2 of 8 buckets: 4,7; every bucket of [0, 7] needs one");
    assertThatThrownBy(() -> BucketMap.parse(3, "0=0-3; 1=4-8"))
        .hasMessage("bucket-map bucket must be in [0, 7] (2^gene-bits = 8 buckets) but was 8 in '1=4-8'");
    assertThatThrownBy(() -> BucketMap.parse(3, "0:0-7"))
        .hasMessage("bucket-map cannot read '0:0-7': expected <target>=<buckets>, e.g. 0=0-31; 1=32-63 or"
            + " 0=0-62/2; 1=1-63/2");
    assertThatThrownBy(() -> BucketMap.parse(3, "ds_0=0-7"))
        .hasMessageStartingWith("bucket-map cannot read target 'ds_0' in 'ds_0=0-7': expected a whole number");
    assertThatThrownBy(() -> BucketMap.parse(3, "0=7-0"))
        .hasMessage("bucket-map range 7-0 in '0=7-0' runs backwards");
    assertThatThrownBy(() -> BucketMap.parse(3, "0=0-7/0"))
        .hasMessage("bucket-map step must be at least 1 but was 0 in '0=0-7/0'");
    assertThatThrownBy(() -> BucketMap.parse(3, " "))
        .hasMessageStartingWith("bucket-map is empty");
    assertThatThrownBy(() -> BucketMap.parse(17, "0=0"))
        .hasMessage("gene-bits must be in [0, 16] but was 17");
  }

  @Test
  void isImmutableAndComparesByContent() {
    int[] targets = {0, 1};
    BucketMap map = BucketMap.of(1, targets);
    targets[0] = 1;
    map.targets()[1] = 0;
    assertThat(map.targets()).containsExactly(0, 1);
    assertThat(map).isEqualTo(BucketMap.parse(1, "0=0; 1=1")).hasSameHashCodeAs(BucketMap.parse(1, "1=1;0=0"));
    BucketMap frozen = map.withState(List.of(1), BucketState.FROZEN).withVersion(4);
    assertThat(frozen).isNotEqualTo(map);
    assertThat(frozen.state(1)).isEqualTo(BucketState.FROZEN);
    assertThat(map.state(1)).isEqualTo(BucketState.NORMAL);
    assertThat(frozen).hasToString("BucketMap[gene-bits=1, version=4, 0=0; 1=1, frozen=1]");
    assertThat(map.withTarget(0, 1).targets()).containsExactly(1, 1);
  }

  @Test
  void constructorChecks() {
    assertThatThrownBy(() -> BucketMap.of(2, new int[] {0, 1}))
        .hasMessage("a bucket map of gene-bits=2 needs 4 targets and states but had 2 and 2");
    assertThatThrownBy(() -> BucketMap.of(1, new int[] {0, -1}))
        .hasMessage("the target of bucket 1 must be at least 0 but was -1");
    assertThatThrownBy(() -> BucketMap.of(1, new int[] {0, 1}).withVersion(-1))
        .hasMessage("version must be in [0, 9223372036854775807] but was -1");
  }
}
