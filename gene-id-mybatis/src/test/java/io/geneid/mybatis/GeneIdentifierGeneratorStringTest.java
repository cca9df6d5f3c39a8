package io.geneid.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import org.junit.jupiter.api.Test;

class GeneIdentifierGeneratorStringTest {

  static class Row {
    @TableId(type = IdType.ASSIGN_ID)
    String id;
  }

  static class NumericRow {
    @TableId(type = IdType.ASSIGN_ID)
    Long id;
  }

  @Test
  void aStringIdPropertyGetsANumberWhoseTextIsTheStringForm() {
    GeneIdStringFormat f = GeneIdStringFormat.builder().prefix("T").build();
    GeneStringIdentifierGenerator g = new GeneStringIdentifierGenerator(
        GeneSnowflakeGenerator.builder().workerId(19).buildUnshared(), f);
    Number id = g.nextId(new Row());
    assertThat(id.toString()).hasSize(14).startsWith("T");
    assertThat(f.parse(id.toString())).isEqualTo(id.longValue());
    assertThat(g.nextId(new NumericRow())).isInstanceOf(Long.class);
    assertThat(g.nextId(null)).isInstanceOf(Long.class);
    assertThat(g.strings()).isEqualTo(f);
    Long plain = new GeneIdentifierGenerator(GeneSnowflakeGenerator.builder().workerId(20).buildUnshared())
        .nextId(new Row());
    assertThat(plain).isPositive(); // the plain generator keeps numbers (MyBatis-Plus writes their digits)
  }
}
