package io.geneid.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #43's runner on embedded H2 with tiny counts: both setups find every row, and the statements and tables of
 * each lookup are what their routing implies (2 databases x 3 months).
 */
class IntervalLookupsTest {

  @Test
  void bothSetupsFindEveryRowAndReadTheTablesTheirRoutingImplies() throws Exception {
    String report = new IntervalLookups(E2eDatabases.Server.H2, 30, 20).run();
    // | lookup | usual: statements / tables / p50 | gene: statements / tables / p50 |
    assertThat(cells(report, "an item by its id")).containsExactly("2.00 / 6.00", "1.00 / 1.00");
    assertThat(cells(report, "an order by its id")).containsExactly("2.00 / 6.00", "1.00 / 1.00");
    assertThat(cells(report, "the items of an order, by order id and user id").get(0)).isEqualTo("1.00 / 3.00");
    assertThat(cells(report, "a month report (items of November)")).containsExactly("2.00 / 2.00", "2.00 / 2.00");
    String byOrder = cells(report, "the items of an order, by order id").get(1);
    assertThat(byOrder).startsWith("1.00 / ");
    assertThat(Double.parseDouble(byOrder.substring(7))).isBetween(1.0, 2.0);
  }

  /** The statements / tables of each setup on the row of {@code lookup}, without the p50. */
  private static List<String> cells(String report, String lookup) {
    String row = Arrays.stream(report.split("\n")).filter(l -> l.startsWith("| " + lookup + " |")).findFirst()
        .orElseThrow(() -> new AssertionError("no row " + lookup + " in\n" + report));
    String[] parts = row.split("\\|");
    return List.of(parts[2].trim().replaceAll(" / [0-9]+$", ""), parts[3].trim().replaceAll(" / [0-9]+$", ""));
  }
}
