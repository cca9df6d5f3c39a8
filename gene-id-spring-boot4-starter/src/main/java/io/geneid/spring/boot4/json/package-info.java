/** Ids in JSON with Jackson 3: {@code gene-id.json.ids-as-strings}. */
@NullMarked
package io.geneid.spring.boot4.json;

import org.jspecify.annotations.NullMarked;
