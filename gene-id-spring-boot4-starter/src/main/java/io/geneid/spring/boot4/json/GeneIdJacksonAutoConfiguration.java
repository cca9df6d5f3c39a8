package io.geneid.spring.boot4.json;

import io.geneid.spring.boot.GeneIdProperties;
import io.geneid.spring.boot.json.JsonIds;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.ValueSerializerModifier;
import tools.jackson.databind.ser.std.ToStringSerializer;

/**
 * {@code gene-id.json.ids-as-strings: true} (Spring Boot 4, Jackson 3): a Jackson module bean, which Spring Boot adds
 * to its {@code JsonMapper}, that writes id properties ({@link JsonIds#isId}) as JSON strings, so a browser reads ids
 * above 2^53 exactly.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(JsonMapper.class)
@ConditionalOnProperty(prefix = GeneIdProperties.PREFIX, name = "json.ids-as-strings", havingValue = "true")
public class GeneIdJacksonAutoConfiguration {

  /** The module; Spring Boot registers every {@link JacksonModule} bean with its JsonMapper. */
  @Bean
  JacksonModule geneIdJsonIdsModule() {
    return new SimpleModule("gene-id-json-ids").setSerializerModifier(new ValueSerializerModifier() {
      @Override
      public List<BeanPropertyWriter> changeProperties(SerializationConfig config,
          BeanDescription.Supplier description, List<BeanPropertyWriter> properties) {
        for (BeanPropertyWriter property : properties) {
          if (JsonIds.isId(property.getName(), property.getType().getRawClass())) {
            property.assignSerializer(ToStringSerializer.instance);
          }
        }
        return properties;
      }
    });
  }
}
