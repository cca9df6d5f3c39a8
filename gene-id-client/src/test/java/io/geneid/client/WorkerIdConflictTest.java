package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.server.GeneIdServer;
import io.geneid.core.testing.TestTime;
import org.junit.jupiter.api.Test;

/**
 * Issue #40 item 8: two servers that issue as one worker id would hand out the same ids. Two real servers cannot
 * hold one worker id in one JVM (the JVM's registry refuses it), so the two servers here are fakes that answer
 * /v1/info as servers in two processes would: the same worker id, two instances.
 */
class WorkerIdConflictTest {

  @Test
  void twoServersWithOneWorkerIdAreRefusedNamingBothAndTheWorkerId() throws Exception {
    try (FakeServer a = new FakeServer(GeneIdLayout.defaults(), 31);
        FakeServer b = new FakeServer(GeneIdLayout.defaults(), 31);
        // the default request timeout (2 s) at the tests' time scale: both servers must answer for the conflict
        GeneIdClient client = GeneIdClient.builder().addresses(a.url(), b.url()).requestTimeout(TestTime.seconds(2))
            .build()) {
      assertThatThrownBy(client::nextId).isInstanceOf(GeneIdException.class)
          .isInstanceOf(GeneServerConflictException.class)
          .hasMessageContaining(a.url()).hasMessageContaining(b.url())
          .hasMessageContaining("worker id 31");
      assertThatThrownBy(client::nextId).as("again on the next call").isInstanceOf(GeneIdException.class);
    }
  }

  @Test
  void oneServerListedTwiceIsNoConflict() {
    try (GeneIdServer a = TestServers.start(32);
        GeneIdClient client = GeneIdClient.builder()
            .addresses(TestServers.url(a), "http://localhost:" + a.httpPort()).requestTimeout(TestTime.seconds(2))
            .build()) {
      assertThat(client.nextIds(3)).hasSize(3);
    }
  }
}
