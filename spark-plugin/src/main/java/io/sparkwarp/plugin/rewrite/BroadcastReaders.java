package io.sparkwarp.plugin.rewrite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SubqueryAdaptiveBroadcastExec;
import org.apache.spark.sql.execution.SubqueryBroadcastExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Whether each broadcast exchange of a tagged plan may become the GPU's: only GPU broadcast hash joins read a
 * {@link io.sparkwarp.plugin.exec.ColumnarBroadcast}, so Spark's exchange stays where any other reader is, or may be,
 * one: a parent that is not such a join, dynamic partition pruning (its subquery reads the join's broadcast as a
 * HashedRelation), or another exchange of the same result that stays Spark's (Spark reuses one for both).
 */
final class BroadcastReaders {
  private BroadcastReaders() {}

  /** Records on each broadcast exchange meta under {@code root} why a reader needs Spark's exchange, if one does. */
  static void check(ExecMeta root) {
    List<BroadcastExchangeMeta> exchanges = new ArrayList<>();
    visit(root, null, exchanges);
    List<Expression> pruningKeys = new ArrayList<>();
    dynamicPruningKeys(root.plan, pruningKeys);
    for (BroadcastExchangeMeta b : exchanges) {
      if (pruningKeys.stream().anyMatch(key -> !key.references().isEmpty()
          && key.references().subsetOf(b.exchange.outputSet()))) {
        b.willNotWorkOnGpu("dynamic partition pruning reads the same broadcast as Spark's HashedRelation");
      }
    }
    Map<SparkPlan, List<BroadcastExchangeMeta>> sameResult = new LinkedHashMap<>();
    exchanges.forEach(b -> sameResult.computeIfAbsent(b.exchange.canonicalized(), k -> new ArrayList<>()).add(b));
    for (List<BroadcastExchangeMeta> same : sameResult.values()) {
      if (same.stream().allMatch(ExecMeta::canRunOnGpu)) continue;
      same.stream().filter(ExecMeta::canRunOnGpu).forEach(b -> b.willNotWorkOnGpu(
          "Spark reuses it for an equal broadcast that stays Spark's exchange"));
    }
  }

  private static void visit(ExecMeta meta, ExecMeta parent, List<BroadcastExchangeMeta> out) {
    if (meta instanceof BroadcastExchangeMeta b) {
      out.add(b);
      if (parent == null) {
        // a query stage of adaptive execution: its readers were judged over the whole plan before
        List<String> judged = b.readerReasons();
        if (judged == null) {
          b.willNotWorkOnGpu("its readers are out of view (not judged before adaptive execution made the stage)");
        } else {
          judged.stream().filter(r -> !b.reasons().contains(r)).toList().forEach(b::willNotWorkOnGpu);
        }
      } else if (!(parent instanceof JoinMeta join && join.readsBroadcastOnGpu(b))) {
        b.willNotWorkOnGpu("read by " + parent.plan.nodeName() + ", which reads Spark's HashedRelation");
      }
    }
    for (ExecMeta child : meta.children) visit(child, meta, out);
  }

  /** The build keys of every dynamic pruning subquery over a broadcast, in {@code plan} and its subqueries. */
  private static void dynamicPruningKeys(SparkPlan plan, List<Expression> out) {
    plan.foreach(node -> {
      for (SparkPlan subquery : CollectionConverters.asJava(node.subqueries())) {
        if (subquery instanceof SubqueryBroadcastExec s) out.addAll(CollectionConverters.asJava(s.buildKeys()));
        if (subquery instanceof SubqueryAdaptiveBroadcastExec s) {
          out.addAll(CollectionConverters.asJava(s.buildKeys()));
        }
        dynamicPruningKeys(subquery, out);
      }
      return scala.runtime.BoxedUnit.UNIT;
    });
  }
}
