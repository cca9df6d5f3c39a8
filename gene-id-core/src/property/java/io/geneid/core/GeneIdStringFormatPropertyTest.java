package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The string form of ids: every id round-trips, string order is numeric order, the gene survives. */
class GeneIdStringFormatPropertyTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  /** The last id the default layout can make: its timestamp field full. */
  private static final long LAST_ID = Long.MAX_VALUE;

  @Provide
  Arbitrary<GeneIdStringFormat> formats() {
    Arbitrary<String> prefixes = Arbitraries.strings().withChars("ABCXYZabz019_-.:").ofMinLength(0).ofMaxLength(8);
    return prefixes.flatMap(p -> Arbitraries.of(true, false).map(date -> date
        ? GeneIdStringFormat.builder().prefix(p).date(LAYOUT).build()
        : GeneIdStringFormat.builder().prefix(p).build()));
  }

  @Provide
  Arbitrary<Long> ids() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, LAST_ID),
        Arbitraries.of(0L, 1L, 31L, 32L, LAST_ID, LAST_ID - 1, 1L << 62, (1L << 62) - 1));
  }

  @Property(tries = 2000)
  void everyIdRoundTrips(@ForAll("formats") GeneIdStringFormat format, @ForAll("ids") long id) {
    String text = format.format(id);
    assertThat(text).hasSize(format.length()).startsWith(format.prefix());
    assertThat(format.matches(text)).isTrue();
    assertThat(format.parse(text)).isEqualTo(id);
  }

  @Property(tries = 2000)
  void stringOrderIsNumericOrder(@ForAll("formats") GeneIdStringFormat format, @ForAll("ids") long a,
      @ForAll("ids") long b) {
    int strings = Integer.signum(format.format(a).compareTo(format.format(b)));
    assertThat(strings).isEqualTo(Long.signum(Long.compare(a, b)));
  }

  @Property(tries = 1000)
  void theGeneOfTheDecodedIdIsTheGeneOfTheId(@ForAll("formats") GeneIdStringFormat format, @ForAll("ids") long id,
      @ForAll @IntRange(min = 0, max = 16) int geneBits) {
    long decoded = format.parse(format.format(id));
    assertThat(Genes.of(decoded, geneBits)).isEqualTo(Genes.of(id, geneBits));
    assertThat(LAYOUT.decode(decoded)).isEqualTo(format.decode(format.format(id), LAYOUT));
  }

  @Property(tries = 1000)
  void theDatePartIsTheUtcDayOfTheIdsTimestamp(@ForAll @LongRange(min = 0, max = LAST_ID) long id) {
    GeneIdStringFormat format = GeneIdStringFormat.builder().prefix("ORD").date(LAYOUT).build();
    Instant at = LAYOUT.decode(id).timestamp();
    String day = at.toString().substring(0, 10).replace("-", "");
    assertThat(format.format(id)).startsWith("ORD" + day);
  }

  @Property(tries = 1000)
  void anAlteredDigitIsRefusedOrDecodesToAnotherId(@ForAll("ids") long id, @ForAll @IntRange(min = 0, max = 12) int at,
      @ForAll @IntRange(min = 0, max = 31) int digit) {
    GeneIdStringFormat format = GeneIdStringFormat.plain();
    char[] text = format.format(id).toCharArray();
    char replaced = GeneIdStringFormat.ALPHABET.charAt(digit);
    boolean changed = text[at] != replaced;
    text[at] = replaced;
    String altered = new String(text);
    if (!format.matches(altered)) {
      return; // a first digit above 7: refused
    }
    assertThat(format.parse(altered) == id).isEqualTo(!changed);
  }
}
