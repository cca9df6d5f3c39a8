package io.geneid.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StoreUrlsTest {

  private static final String SECRET = "Sx7q/Kp4z+Zr9w@Yt3v:Wv8u%Um2k Hn5j";

  @Test
  void describesEveryStoreByAddressOnly() {
    assertThat(StoreUrls.describe("jdbc:mariadb://app:s3cret@db1.example:3306/ids?password=s3cret&ssl=true"))
        .isEqualTo("mariadb://db1.example:3306/ids");
    assertThat(StoreUrls.describe("jdbc:postgresql://h1:5432,h2:5432/ids?user=u&password=p"))
        .isEqualTo("postgresql://h1:5432,h2:5432/ids");
    assertThat(StoreUrls.describe("jdbc:h2:tcp://127.0.0.1:9092/mem:x;PASSWORD=p")).isEqualTo("h2:tcp://127.0.0.1:9092/mem:x");
    assertThat(StoreUrls.describe("jdbc:h2:mem:x;USER=sa;PASSWORD=p")).isEqualTo("h2:mem:x");
    assertThat(StoreUrls.describe("jdbc:oracle:thin:scott/tiger@db3:1521/ids")).isEqualTo("oracle://db3:1521/ids");
    assertThat(StoreUrls.describe("redis://:p%2Fw@127.0.0.1:6379/0")).isEqualTo("redis://127.0.0.1:6379/0");
    assertThat(StoreUrls.describe("redis-sentinel://:pw@s1:26379,s2:26379/0#mymaster"))
        .isEqualTo("redis-sentinel://s1:26379,s2:26379/0");
    assertThat(StoreUrls.describe("redis://[::1]:6380/2")).isEqualTo("redis://[::1]:6380/2");
    assertThat(StoreUrls.describe(null)).isEqualTo("(unknown URL)");
    assertThat(StoreUrls.describe("localhost:6379")).as("no scheme: shown as typed").isEqualTo("localhost:6379");
  }

  @Test
  void aPasswordWithReservedCharactersIsNeverShownWhereverItIs() {
    for (String url : new String[] {
        "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + SECRET,
        "jdbc:mariadb://root:" + SECRET + "@127.0.0.1:3306/test",
        "jdbc:mariadb://127.0.0.1:3306/test?user=root&pwd=" + SECRET,
        "redis://:" + SECRET + "@127.0.0.1:6379/0",
        "redis://default:" + SECRET + "@127.0.0.1:6379/zero",
        "jdbc:h2:mem:x;PASSWORD=" + SECRET}) {
      String described = StoreUrls.describe(url);
      String scrubbed = StoreUrls.scrub("No suitable driver found for " + url + " (really)", url);
      for (String piece : new String[] {"Sx7q", "Kp4z", "Zr9w", "Yt3v", "Wv8u", "Um2k", "Hn5j"}) {
        assertThat(described).as(url).doesNotContain(piece);
        assertThat(scrubbed).as(url).doesNotContain(piece);
      }
      if (!url.contains("h2:mem")) {
        assertThat(described).as(url).contains("127.0.0.1").doesNotContain("root");
      }
    }
  }

  @Test
  void scrubsUrlsAndPasswordParametersInAnyMessage() {
    assertThat(StoreUrls.scrub("No suitable driver found for jdbc:x://h/db?user=u&password=p/q+r", null))
        .isEqualTo("No suitable driver found for x://h/db");
    assertThat(StoreUrls.scrub("bad option password=abc;other", null)).isEqualTo("bad option password=***;other");
    assertThat(StoreUrls.scrub("at redis://:pw@h:1/0, then", null)).isEqualTo("at redis://h:1/0, then");
  }

  @Test
  void aPieceOfThePasswordQuotedAloneIsMaskedToo() {
    // MariaDB's driver reads root:Sx7q/... as host:port and says "Incorrect port value : Sx7q"
    String url = "jdbc:mariadb://root:" + SECRET + "@127.0.0.1:3306/test";
    assertThat(StoreUrls.scrub("Incorrect port value : Sx7q", url)).isEqualTo("Incorrect port value : ***");
    assertThat(StoreUrls.scrub("bad value 'Um2k Hn5j'", "redis://:Sx7q%2FKp4z%20Um2k%20Hn5j@h:1/0"))
        .isEqualTo("bad value '*** ***'");
    assertThat(StoreUrls.scrub("oracle says tiger", "jdbc:oracle:thin:scott/tiger@db3:1521/ids"))
        .isEqualTo("oracle says ***");
    assertThat(StoreUrls.scrub("the user root", url)).as("the user name is not a secret").isEqualTo("the user root");
  }
}
