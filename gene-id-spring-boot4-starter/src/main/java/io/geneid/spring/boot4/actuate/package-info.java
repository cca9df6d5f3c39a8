/** The Spring Boot 4 health indicator; everything else of this starter is shared with the Boot 3 starter. */
@NullMarked
package io.geneid.spring.boot4.actuate;

import org.jspecify.annotations.NullMarked;
