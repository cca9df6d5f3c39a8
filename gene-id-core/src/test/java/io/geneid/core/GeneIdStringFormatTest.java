package io.geneid.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class GeneIdStringFormatTest {

  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();
  private static final GeneIdStringFormat ORDERS = GeneIdStringFormat.builder().prefix("ORD").date(LAYOUT).build();

  @Test
  void writesPrefixDateAndThirteenBase32Digits() {
    long id = LAYOUT.encode(new GeneIdParts(Instant.parse("2026-11-25T06:30:00Z"), 3, 7, 42));
    String text = ORDERS.format(id);
    assertThat(text).hasSize(3 + 8 + 13).startsWith("ORD20261125").matches("ORD20261125[0-7][0-9A-HJKMNP-TV-Z]{12}");
    assertThat(ORDERS.parse(text)).isEqualTo(id);
    assertThat(ORDERS.decode(text, LAYOUT)).isEqualTo(new GeneIdParts(Instant.parse("2026-11-25T06:30:00Z"), 3, 7, 42));
    assertThat(GeneIdStringFormat.plain().format(0)).isEqualTo("0000000000000");
    assertThat(GeneIdStringFormat.plain().format(Long.MAX_VALUE)).isEqualTo("7ZZZZZZZZZZZZ");
    assertThat(GeneIdStringFormat.plain().format(32)).isEqualTo("0000000000010");
  }

  @Test
  void refusesStringsOfAnotherShapeNamingThem() {
    GeneIdStringFormat plain = GeneIdStringFormat.plain();
    assertThatThrownBy(() -> plain.parse("123"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("string id '123' must have 13 characters (13 base-32 digits) but has 3");
    assertThatThrownBy(() -> plain.parse("00000000000I0"))
        .hasMessage("string id '00000000000I0' has 'I' at index 11 in its id part, not a base-32 digit "
            + "(0123456789ABCDEFGHJKMNPQRSTVWXYZ)");
    assertThatThrownBy(() -> plain.parse("000000000000a"))
        .hasMessageContaining("has 'a' at index 12 in its id part");
    assertThatThrownBy(() -> plain.parse("8000000000000"))
        .hasMessage("string id '8000000000000' encodes a number above 63 bits: the first digit of its id part must be"
            + " 0 to 7 but was '8'");
    assertThatThrownBy(() -> ORDERS.parse("INV202611250000000000000"))
        .hasMessage("string id 'INV202611250000000000000' must start with the prefix 'ORD'");
    assertThatThrownBy(() -> ORDERS.parse("ORD2026112X0000000000000"))
        .hasMessage("string id 'ORD2026112X0000000000000' has 'X' at index 10 in its date part (yyyyMMdd), not a "
            + "digit");
    assertThatThrownBy(() -> ORDERS.parse("ORD202613250000000000000"))
        .hasMessage("string id 'ORD202613250000000000000' has the date part '20261325', which is not a day "
            + "(yyyyMMdd)");
  }

  @Test
  void refusesADateThatIsNotTheIdsOwnDay() {
    long id = LAYOUT.encode(new GeneIdParts(Instant.parse("2026-11-25T23:59:59.999Z"), 3, 7, 42));
    String text = ORDERS.format(id);
    assertThat(text).startsWith("ORD20261125");
    String altered = "ORD20261126" + text.substring(11);
    assertThatThrownBy(() -> ORDERS.parse(altered))
        .hasMessage("string id '" + altered + "' has the date part 20261126 but its id " + id + " was made at "
            + "2026-11-25T23:59:59.999Z (20261125 UTC): the string was altered");
    assertThat(ORDERS.matches(altered)).isTrue(); // the shape is right; parse checks the day
  }

  @Test
  void checksItsSettings() {
    assertThatThrownBy(() -> GeneIdStringFormat.builder().prefix("OR D").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("string-id-prefix must be made of A-Z a-z 0-9 _ - . : but was 'OR D' (character ' ' at index 2)");
    assertThatThrownBy(() -> GeneIdStringFormat.builder().prefix("P".repeat(33)).build())
        .hasMessageStartingWith("string-id-prefix must be at most 32 characters but was");
    GeneIdLayout longLived = GeneIdLayout.builder().timestampBits(49).workerBits(4).sequenceBits(4).geneBits(6).build();
    assertThatThrownBy(() -> GeneIdStringFormat.builder().date(longLived).build())
        .hasMessageStartingWith("string-id-date must be false unless the layout's timestamps end before the year 10000");
    assertThatThrownBy(() -> GeneIdStringFormat.plain().format(-1))
        .hasMessage("id must not be negative but was -1");
    assertThat(GeneIdStringFormat.builder().build()).isEqualTo(GeneIdStringFormat.plain());
  }
}
