/** Ids in JSON with Jackson 2: {@code gene-id.json.ids-as-strings}. */
@NullMarked
package io.geneid.spring.boot3.json;

import org.jspecify.annotations.NullMarked;
