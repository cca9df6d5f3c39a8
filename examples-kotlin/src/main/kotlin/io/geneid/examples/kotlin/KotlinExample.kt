package io.geneid.examples.kotlin

import com.baomidou.mybatisplus.annotation.IdType
import com.baomidou.mybatisplus.annotation.TableId
import com.baomidou.mybatisplus.annotation.TableName
import com.baomidou.mybatisplus.core.MybatisConfiguration
import com.baomidou.mybatisplus.core.MybatisSqlSessionFactoryBuilder
import com.baomidou.mybatisplus.core.batch.MybatisBatch
import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator
import com.baomidou.mybatisplus.core.mapper.BaseMapper
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils
import io.geneid.core.GeneContext
import io.geneid.core.GeneIdLayout
import io.geneid.core.snowflake.GeneSnowflakeGenerator
import io.geneid.core.GeneSource
import io.geneid.mybatis.GeneIdentifierGenerator
import java.util.concurrent.ThreadLocalRandom
import org.apache.ibatis.mapping.Environment
import org.apache.ibatis.session.SqlSessionFactory
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory
import org.h2.jdbcx.JdbcDataSource

/** A root row: MyBatis-Plus asks gene-id for its id, which is spread over the genes. */
@TableName("t_order")
class Order(
    @field:TableId(type = IdType.ASSIGN_ID) var id: Long? = null,
    var customer: String = "",
)

/** A child row: its id carries the gene of [orderId], so it lands on its order's shard. */
@TableName("t_order_item")
class OrderItem(
    @field:TableId(type = IdType.ASSIGN_ID) var id: Long? = null,
    @field:GeneSource var orderId: Long? = null,
    var sku: String = "",
)

interface OrderMapper : BaseMapper<Order>

interface OrderItemMapper : BaseMapper<OrderItem>

/** What the example stored: each order id with the ids of its items, read back from the database. */
data class ExampleResult(val layout: GeneIdLayout, val itemsByOrder: Map<Long, List<Long>>) {
    /** Whether every item id carries its order's gene, i.e. routes to its order's shard. */
    val coLocated: Boolean
        get() = itemsByOrder.all { (order, items) -> items.all { layout.geneOf(it) == layout.geneOf(order) } }
}

/**
 * Uses the core API and the MyBatis-Plus generator from Kotlin on an in-memory H2 database: orders get spread ids,
 * their items (inserted one by one, as a collection and with [MybatisBatch]) get ids carrying the order's gene.
 */
fun runExample(workerId: Long = 42, orders: Int = 4, out: (String) -> Unit = ::println): ExampleResult {
    // The JVM-shared generator for this worker id: the same instance ShardingSphere and Spring would get.
    val generator: GeneSnowflakeGenerator = GeneSnowflakeGenerator.builder().workerId(workerId).build()
    val layout: GeneIdLayout = generator.layout()

    // Core API: every id is a non-null Long.
    val root: Long = generator.nextId()
    val child: Long = generator.nextIdFor(root)
    val byCustomer: Long = generator.nextIdFor("customer-42@example.com")
    val scoped: Long = GeneContext.call(root) { generator.nextId() }
    check(layout.geneOf(child) == layout.geneOf(root) && layout.geneOf(scoped) == layout.geneOf(root))
    out("root $root gene ${layout.geneOf(root)}; child $child and scoped $scoped carry it; " +
        "by customer $byCustomer gene ${layout.geneOf(byCustomer)}")

    val database = "gid_kotlin_" + java.lang.Long.toHexString(ThreadLocalRandom.current().nextLong())
    val dataSource = JdbcDataSource().apply { setURL("jdbc:h2:mem:$database;DB_CLOSE_DELAY=-1") }
    dataSource.connection.use { c ->
        c.createStatement().use { s ->
            s.execute("CREATE TABLE t_order (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)")
            s.execute("CREATE TABLE t_order_item (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, sku VARCHAR(64))")
        }
    }
    try {
        val factory = sessionFactory(dataSource, GeneIdentifierGenerator(generator))
        factory.openSession(true).use { session ->
            val orderMapper = session.getMapper(OrderMapper::class.java)
            val itemMapper = session.getMapper(OrderItemMapper::class.java)
            val stored = (1..orders).map { n -> Order(customer = "customer-$n").also { orderMapper.insert(it) } }
            for (order in stored) {
                itemMapper.insert(OrderItem(orderId = order.id, sku = "one-by-one"))
            }
            itemMapper.insert(stored.map { OrderItem(orderId = it.id, sku = "collection") })
            MybatisBatch(factory, stored.map { OrderItem(orderId = it.id, sku = "batch") })
                .execute(MybatisBatch.Method<OrderItem>(OrderItemMapper::class.java).insert())

            val itemsByOrder: Map<Long, List<Long>> = itemMapper.selectList(null)
                .groupBy({ requireNotNull(it.orderId) }, { requireNotNull(it.id) })
            for ((order, items) in itemsByOrder) {
                out("order $order (gene ${layout.geneOf(order)}): items " +
                    items.joinToString { "$it (gene ${layout.geneOf(it)})" })
            }
            return ExampleResult(layout, itemsByOrder)
        }
    } finally {
        dataSource.connection.use { c -> c.createStatement().use { it.execute("SHUTDOWN") } }
    }
}

private fun sessionFactory(dataSource: JdbcDataSource, ids: IdentifierGenerator): SqlSessionFactory {
    val configuration = MybatisConfiguration()
    configuration.environment = Environment("kotlin-example", JdbcTransactionFactory(), dataSource)
    GlobalConfigUtils.setGlobalConfig(configuration, GlobalConfigUtils.defaults().setBanner(false).setIdentifierGenerator(ids))
    configuration.addMapper(OrderMapper::class.java)
    configuration.addMapper(OrderItemMapper::class.java)
    return MybatisSqlSessionFactoryBuilder().build(configuration)
}

fun main() {
    val result = runExample()
    println(if (result.coLocated) "every item carries its order's gene" else "MISMATCH: an item lost its order's gene")
    if (!result.coLocated) {
        kotlin.system.exitProcess(1)
    }
}
