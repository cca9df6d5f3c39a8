package io.geneid.spring.boot3.json;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.geneid.spring.boot.GeneIdProperties;
import io.geneid.spring.boot.json.JsonIds;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * {@code gene-id.json.ids-as-strings: true} (Spring Boot 3, Jackson 2): a Jackson module bean, which Spring Boot adds
 * to its {@code ObjectMapper}, that writes id properties ({@link JsonIds#isId}) as JSON strings, so a browser reads
 * ids above 2^53 exactly.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration")
@ConditionalOnClass(ObjectMapper.class)
@ConditionalOnProperty(prefix = GeneIdProperties.PREFIX, name = "json.ids-as-strings", havingValue = "true")
public class GeneIdJacksonAutoConfiguration {

  /** The module; Spring Boot registers every {@link Module} bean with its ObjectMapper. */
  @Bean
  Module geneIdJsonIdsModule() {
    return new SimpleModule("gene-id-json-ids").setSerializerModifier(new BeanSerializerModifier() {
      @Override
      public List<BeanPropertyWriter> changeProperties(SerializationConfig config, BeanDescription description,
          List<BeanPropertyWriter> properties) {
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
