package io.geneid.spring.boot;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.geneid.core.GeneIdGenerator;
import io.geneid.mybatis.GeneIdentifierGenerator;
import java.util.Arrays;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With MyBatis-Plus on the classpath, registers a {@link GeneIdentifierGenerator} over the application's
 * {@link GeneIdGenerator}; MyBatis-Plus's Spring Boot starter picks it up for every {@code IdType.ASSIGN_ID} entity
 * (and for {@code IdWorker.getId()}).
 *
 * <p>Backs off when the application defines its own {@link IdentifierGenerator} bean, so MyBatis-Plus never sees two.
 */
@AutoConfiguration(after = GeneIdAutoConfiguration.class,
    beforeName = "com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration")
@ConditionalOnClass({IdentifierGenerator.class, GeneIdentifierGenerator.class})
public class GeneIdMybatisPlusAutoConfiguration {

  /**
   * The MyBatis-Plus id generator.
   *
   * @throws IllegalStateException if the context holds several {@link GeneIdGenerator} beans and none is primary
   */
  @Bean
  @ConditionalOnMissingBean(IdentifierGenerator.class)
  @ConditionalOnBean(GeneIdGenerator.class)
  public GeneIdentifierGenerator geneIdentifierGenerator(ObjectProvider<GeneIdGenerator> generators,
      ListableBeanFactory beans) {
    GeneIdGenerator generator = generators.getIfUnique();
    if (generator == null) {
      throw new IllegalStateException("the MyBatis-Plus IdentifierGenerator of gene-id needs one GeneIdGenerator but"
          + " found " + Arrays.toString(beans.getBeanNamesForType(GeneIdGenerator.class))
          + ": mark one @Primary or define your own IdentifierGenerator bean");
    }
    return new GeneIdentifierGenerator(generator);
  }
}
