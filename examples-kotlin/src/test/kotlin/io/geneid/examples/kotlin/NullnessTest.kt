package io.geneid.examples.kotlin

import io.geneid.core.GeneIdGenerator
import io.geneid.core.GeneIdLayout
import io.geneid.core.GeneIdParts
import io.geneid.core.snowflake.GeneSnowflakeGenerator
import io.geneid.mybatis.GeneIdentifierGenerator
import java.time.Instant
import kotlin.reflect.KType
import kotlin.reflect.typeOf
import kotlin.test.Test
import kotlin.test.assertEquals

/**
 * The Kotlin compiler reads the JSpecify `@NullMarked` packages of gene-id: Java methods there return plain
 * Kotlin types (`Long`, `GeneIdParts`), not platform types (`Long!`) and not nullable ones.
 *
 * [staticType] captures the type the compiler inferred for an expression: a platform type prints with a `!`, a
 * nullable one with a `?`. The control case shows the check tells them apart.
 */
class NullnessTest {

    private val generator: GeneSnowflakeGenerator = GeneSnowflakeGenerator.builder().workerId(44).buildUnshared()

    /** Compiles only for a non-null Long: no `!!`, no `?:` needed at the call sites below. */
    private fun onlyNonNull(id: Long): Long = id

    @Test
    fun `control - an unannotated Java method returns a platform type`() {
        assertEquals("kotlin.String!", staticType(System.getProperty("java.version")).toString())
        assertEquals("kotlin.String?", staticType(System.getProperty("java.version") as String?).toString())
    }

    @Test
    fun `the MyBatis-Plus generator returns Long, neither a platform nor a nullable Long`() {
        val ids = GeneIdentifierGenerator(generator)
        val id: Long = ids.nextId(OrderItem(orderId = 4242L))
        assertEquals("kotlin.Long", staticType(ids.nextId(OrderItem(orderId = 1L))).toString())
        assertEquals(4242L and 63, generator.layout().geneOf(onlyNonNull(id)))
        // @Nullable parameter: null is accepted even under -Xjspecify-annotations=strict
        assertEquals("kotlin.Long", staticType(ids.nextId(null)).toString())
        assertEquals("io.geneid.core.GeneIdGenerator", staticType(ids.generator()).toString())
    }

    @Test
    fun `core API types are not platform types`() {
        val layout = GeneIdLayout.defaults()
        val parts = layout.decode(generator.nextIdFor(7L))
        assertEquals("io.geneid.core.GeneIdLayout", staticType(layout).toString())
        assertEquals("io.geneid.core.GeneIdParts", staticType(parts).toString())
        assertEquals("java.time.Instant", staticType(parts.timestamp()).toString())
        assertEquals("java.time.Instant", staticType(layout.epoch()).toString())
        val asInterface: GeneIdGenerator = generator
        val fromInterface: Long = asInterface.nextIdForKey("customer-1")
        assertEquals(layout.geneOf("customer-1"), layout.geneOf(onlyNonNull(fromInterface)))
        val decoded: GeneIdParts = parts
        val at: Instant = decoded.timestamp()
        assertEquals(7L, decoded.gene())
        assertEquals(false, at.isBefore(layout.epoch()))
    }
}

/** The static (compile-time) type of [value], as `typeOf` sees the type argument the compiler inferred. */
inline fun <reified T> staticType(@Suppress("UNUSED_PARAMETER") value: T): KType = typeOf<T>()
