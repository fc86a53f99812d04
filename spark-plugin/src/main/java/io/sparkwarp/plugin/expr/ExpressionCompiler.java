package io.sparkwarp.plugin.expr;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import io.sparkwarp.kernels.expr.Comparison;
import io.sparkwarp.kernels.expr.DateField;
import io.sparkwarp.kernels.expr.EvalMode;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.Opcode;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.plugin.types.SparkTypes;
import io.sparkwarp.strings.ColumnMatch;
import io.sparkwarp.strings.ColumnSubstring;
import io.sparkwarp.strings.CompiledPattern;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BinaryArithmetic;
import org.apache.spark.sql.catalyst.expressions.BinaryComparison;
import org.apache.spark.sql.catalyst.expressions.BinaryExpression;
import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.DayOfMonth;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.Divide;
import org.apache.spark.sql.catalyst.expressions.EndsWith;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.IntegralDivide;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.KnownFloatingPointNormalized;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Month;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.Quarter;
import org.apache.spark.sql.catalyst.expressions.RLike;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.catalyst.expressions.UnaryPositive;
import org.apache.spark.sql.catalyst.expressions.Year;
import org.apache.spark.sql.execution.ScalarSubquery;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Compiles Spark expressions into one {@link ExprProgram}, with Spark's semantics: evaluation order and laziness
 * (a skipped branch or operand never raises its errors), eval modes, result types. Planning first walks the whole
 * tree and collects every reason an expression cannot run on the GPU; instructions are emitted only when there is
 * none.
 *
 * <p>Supported: attribute references and literals of every device type; comparisons {@code = <=> < <= > >=};
 * {@code AND OR NOT}; {@code IS [NOT] NULL}; {@code IN}/InSet of literals; {@code + - * / div %} and unary minus on
 * integers, floats and decimals of precision up to 18; Cast among boolean, integers, floats and decimals and between
 * dates and timestamps (UTC session); year, quarter, month and day of a date; If, CaseWhen, Coalesce; LIKE, RLIKE, StartsWith, EndsWith and Contains of a
 * string column and a literal pattern (string matchers run before the program, see {@link PatternCompilation});
 * substring of a string column with literal position and length (computed before the program too). Strings and
 * binaries are compared and tested, and are outputs only as bare column references or substrings.
 */
public final class ExpressionCompiler {
  private ExpressionCompiler() {}

  /**
   * Compiles a projection: one program output per element of {@code projectList}; bare attributes become
   * pass-through outputs.
   *
   * @param input the child's output; an attribute's ordinal there is its column in the batch
   */
  public static CompiledExpressions compileProjection(List<NamedExpression> projectList, List<Attribute> input,
      ExpressionSettings settings) {
    Compilation c = new Compilation(input, settings);
    List<Consumer<ExprProgram.Builder>> outputs = new ArrayList<>();
    for (NamedExpression named : projectList) {
      Expression e = unwrap((Expression) named);
      if (e instanceof AttributeReference a) {
        Integer column = c.column(a);
        if (column != null) outputs.add(b -> b.passThrough(column));
        continue;
      }
      Node node = c.plan(e);
      if (node == null) continue;
      if (node.type.isVariableWidth() && node.column != null) {
        outputs.add(b -> b.passThrough(node.column.getAsInt()));
      } else if (node.type.isVariableWidth()) {
        c.reasons.add(node.type + "-valued " + e.nodeName() + " is not supported on the GPU (only a bare column "
            + "reference or a substring can output " + node.type + ")");
      } else {
        outputs.add(node.emit);
        outputs.add(ExprProgram.Builder::output);
      }
    }
    return c.finish(outputs);
  }

  /** Compiles a filter condition: a program with its boolean result as the one output. */
  public static CompiledExpressions compilePredicate(Expression condition, List<Attribute> input,
      ExpressionSettings settings) {
    Compilation c = new Compilation(input, settings);
    Node node = c.plan(condition);
    List<Consumer<ExprProgram.Builder>> outputs = new ArrayList<>();
    if (node != null) {
      if (node.type.kind() != Kind.BOOLEAN) {
        c.reasons.add("the filter condition " + condition + " is not a boolean");
      } else {
        outputs.add(node.emit);
        outputs.add(ExprProgram.Builder::output);
      }
    }
    return c.finish(outputs);
  }

  /** Aliases and the optimizer's markers that do not change values. */
  private static Expression unwrap(Expression e) {
    while (true) {
      if (e instanceof Alias a) e = a.child();
      else if (e instanceof KnownFloatingPointNormalized k) e = k.child();
      else return e;
    }
  }

  /**
   * A planned expression: its device type, whether evaluating it may raise an error (then Spark's laziness must be
   * kept with jumps), how to emit it, and where it is a derived input column of the program (a substring), that
   * column, known once planning is done: a projection outputs it as it is.
   */
  private record Node(DeviceType type, boolean canFail, Consumer<ExprProgram.Builder> emit, IntSupplier column) {
    Node(DeviceType type, boolean canFail, Consumer<ExprProgram.Builder> emit) {
      this(type, canFail, emit, null);
    }
  }

  /** The state of one compilation: input columns, reasons, error sites. */
  private static final class Compilation {
    private final ExpressionSettings settings;
    private final Map<ExprId, Integer> columns = new HashMap<>();
    private final List<DeviceType> inputTypes = new ArrayList<>();
    private final Set<String> reasons = new LinkedHashSet<>();
    private final Map<Integer, Expression> errorSites = new HashMap<>();
    private final List<ColumnMatch> stringMatches = new ArrayList<>();
    private final List<ColumnSubstring> substrings = new ArrayList<>();

    Compilation(List<Attribute> input, ExpressionSettings settings) {
      this.settings = settings;
      for (int i = 0; i < input.size(); i++) {
        Attribute a = input.get(i);
        columns.put(a.exprId(), i);
        Optional<DeviceType> type = SparkTypes.deviceType(a.dataType(), settings.timeZone());
        if (type.isEmpty()) {
          reasons.add("input column " + a.name() + ": " + SparkTypes.whyNot(a.dataType()).orElseThrow());
        }
        inputTypes.add(type.orElse(DeviceType.BOOLEAN));
      }
    }

    Integer column(AttributeReference a) {
      Integer column = columns.get(a.exprId());
      if (column == null) reasons.add("attribute " + a + " is not among the input columns");
      return column;
    }

    CompiledExpressions finish(List<Consumer<ExprProgram.Builder>> steps) {
      if (!reasons.isEmpty()) {
        return new CompiledExpressions(null, List.of(), List.of(), new ArrayList<>(reasons), Map.of());
      }
      List<DeviceType> types = new ArrayList<>(inputTypes);
      stringMatches.forEach(m -> types.add(DeviceType.BOOLEAN));
      substrings.forEach(s -> types.add(DeviceType.STRING));
      ExprProgram.Builder b = ExprProgram.builder(types);
      steps.forEach(s -> s.accept(b));
      return new CompiledExpressions(b.build(), stringMatches, substrings, List.of(), errorSites);
    }

    /**
     * The program column holding {@code matcher} over input column {@code column}: a match the string predicates
     * compute before the program runs (one per distinct column and matcher).
     */
    int matchColumn(int column, StringMatcher matcher) {
      ColumnMatch m = new ColumnMatch(column, matcher);
      int i = stringMatches.indexOf(m);
      if (i < 0) {
        i = stringMatches.size();
        stringMatches.add(m);
      }
      return inputTypes.size() + i;
    }

    /**
     * The program column holding {@code substring} (one per distinct column and arguments): it follows the match
     * columns, so its index is known once planning has found them all.
     */
    IntSupplier substringColumn(ColumnSubstring substring) {
      int i = substrings.indexOf(substring);
      if (i < 0) {
        i = substrings.size();
        substrings.add(substring);
      }
      int index = i;
      return () -> inputTypes.size() + stringMatches.size() + index;
    }

    private DeviceType deviceType(Expression e) {
      Optional<DeviceType> t = SparkTypes.deviceType(e.dataType(), settings.timeZone());
      if (t.isEmpty()) reasons.add("expression " + e + ": " + SparkTypes.whyNot(e.dataType()).orElseThrow());
      return t.orElse(null);
    }

    private boolean enabled(String family) {
      if (settings.familyEnabled().test(family)) return true;
      reasons.add(family + " expressions are disabled by " + ExpressionSettings.enabledKey(family) + "=false");
      return false;
    }

    private Node unsupported(Expression e) {
      reasons.add("expression " + e.nodeName() + " [" + e + "] is not supported on the GPU");
      return null;
    }

    /** Plans {@code e}, or returns null after recording why it cannot run on the GPU. */
    Node plan(Expression e) {
      e = unwrap(e);
      if (e instanceof AttributeReference a) {
        Integer column = column(a);
        DeviceType type = deviceType(a);
        return column == null || type == null ? null : new Node(type, false, b -> b.column(column));
      }
      if (e instanceof Literal l) return literal(l);
      if (e instanceof ScalarSubquery s) return subqueryValue(s);
      if (e instanceof EqualNullSafe || e instanceof EqualTo || e instanceof LessThan || e instanceof LessThanOrEqual
          || e instanceof GreaterThan || e instanceof GreaterThanOrEqual) {
        return comparison((BinaryComparison) e);
      }
      if (e instanceof And || e instanceof Or) return logic(e, e instanceof Or);
      if (e instanceof Not n) return unary(n, "logic", n.child(), (b, t) -> b.not());
      if (e instanceof IsNull n) return unary(n, "null", n.child(), (b, t) -> b.isNull());
      if (e instanceof IsNotNull n) return unary(n, "null", n.child(), (b, t) -> b.isNotNull());
      if (e instanceof In in) return in(in);
      if (e instanceof InSet in) return inSet(in);
      if (e instanceof Add || e instanceof Subtract || e instanceof Multiply) return arithmetic((BinaryArithmetic) e);
      if (e instanceof NormalizeNaNAndZero n) return normalized(n);
      if (e instanceof Divide || e instanceof IntegralDivide || e instanceof Remainder) {
        return division((BinaryArithmetic) e);
      }
      if (e instanceof UnaryMinus m) return negate(m);
      if (e instanceof Year y) return unary(y, "datetime", y.child(), (b, t) -> b.dateField(DateField.YEAR));
      if (e instanceof Quarter q) return unary(q, "datetime", q.child(), (b, t) -> b.dateField(DateField.QUARTER));
      if (e instanceof Month m) return unary(m, "datetime", m.child(), (b, t) -> b.dateField(DateField.MONTH));
      if (e instanceof DayOfMonth d) {
        return unary(d, "datetime", d.child(), (b, t) -> b.dateField(DateField.DAY_OF_MONTH));
      }
      if (e instanceof UnaryPositive p) return enabled("arithmetic") ? plan(p.child()) : null;
      if (e instanceof Cast c) return cast(c);
      if (e instanceof If i) return conditional(i, List.of(new Tuple2<>(i.predicate(), i.trueValue())),
          Optional.of(i.falseValue()));
      if (e instanceof CaseWhen w) {
        return conditional(w, CollectionConverters.asJava(w.branches()),
            Optional.ofNullable(w.elseValue().isDefined() ? w.elseValue().get() : null));
      }
      if (e instanceof Coalesce c) return coalesce(c);
      if (e instanceof Like || e instanceof RLike || e instanceof StartsWith || e instanceof EndsWith
          || e instanceof Contains) {
        return stringPredicate((BinaryExpression) e);
      }
      if (e instanceof Substring s) return substring(s);
      return unsupported(e);
    }

    private List<Node> planAll(List<Expression> children) {
      List<Node> nodes = new ArrayList<>();
      for (Expression c : children) nodes.add(plan(c));
      return nodes.contains(null) ? null : nodes;
    }

    // ---- Literals ----

    private Node literal(Literal l) {
      DeviceType type = deviceType(l);
      if (type == null) return null;
      Object v = l.value();
      if (v == null) return new Node(type, false, b -> b.nullLiteral(type));
      return switch (type.kind()) {
        case FLOAT, DOUBLE -> {
          double d = ((Number) v).doubleValue();
          yield new Node(type, false, b -> b.literal(type, d));
        }
        case STRING, BINARY -> {
          byte[] bytes = v instanceof UTF8String s ? s.getBytes() : (byte[]) v;
          yield new Node(type, false, b -> b.literal(type, bytes));
        }
        case DECIMAL128 -> {
          java.math.BigInteger unscaled = ((Decimal) v).toJavaBigDecimal().setScale(type.scale()).unscaledValue();
          long low = unscaled.longValue();
          long high = unscaled.shiftRight(64).longValue();
          yield new Node(type, false, b -> b.literal128(type, low, high));
        }
        default -> {
          long x = int64(v, type);
          yield new Node(type, false, b -> b.literal(type, x));
        }
      };
    }

    /**
     * A scalar subquery's value as a literal (TPC-H Q22's {@code c_acctbal > (SELECT avg(..))}). Spark runs the
     * subquery before the operator executes (its expressions hold it) and the program is compiled on the executor
     * with the value; while the plan is rewritten the subquery has not run, and a null of its type stands in, which
     * the program takes wherever it takes the value.
     */
    private Node subqueryValue(ScalarSubquery s) {
      Object value;
      try {
        value = s.eval(null);
      } catch (IllegalArgumentException notRunYet) {
        value = null;
      }
      return literal(new Literal(value, s.dataType()));
    }

    /** A Spark internal value as the device's int64 payload (booleans 0/1, decimals unscaled). */
    private static long int64(Object v, DeviceType type) {
      if (v instanceof Boolean bool) return bool ? 1 : 0;
      if (v instanceof Decimal d) return d.toJavaBigDecimal().setScale(type.scale()).unscaledValue().longValueExact();
      return ((Number) v).longValue();
    }

    // ---- Predicates ----

    private Node comparison(BinaryComparison e) {
      if (!enabled("comparison")) return null;
      List<Node> nodes = planAll(List.of(e.left(), e.right()));
      if (nodes == null) return null;
      Node l = nodes.get(0);
      Node r = nodes.get(1);
      if (l.type.kind() != r.type.kind() || l.type.scale() != r.type.scale()) {
        reasons.add("comparison " + e + " of " + l.type + " with " + r.type + " is not supported on the GPU");
        return null;
      }
      Comparison cmp = e instanceof EqualNullSafe ? Comparison.EQ_NULL_SAFE : e instanceof EqualTo ? Comparison.EQ
          : e instanceof LessThan ? Comparison.LT : e instanceof LessThanOrEqual ? Comparison.LE
          : e instanceof GreaterThan ? Comparison.GT : Comparison.GE;
      // null-intolerant: Spark leaves the right side unevaluated when the left is null (not so for <=>)
      return binary(DeviceType.BOOLEAN, l, r, cmp != Comparison.EQ_NULL_SAFE, b -> b.compare(cmp));
    }

    /** left, right, op; with a skip over right and op when the left is null, if right could raise an error. */
    private Node binary(DeviceType type, Node l, Node r, boolean nullIntolerant, Consumer<ExprProgram.Builder> op) {
      boolean skip = nullIntolerant && r.canFail;
      return new Node(type, l.canFail || r.canFail, b -> {
        ExprProgram.Label end = skip ? b.newLabel() : null;
        l.emit.accept(b);
        if (skip) b.jumpIfNull(end);
        r.emit.accept(b);
        op.accept(b);
        if (skip) b.bind(end);
      });
    }

    private Node logic(Expression e, boolean or) {
      if (!enabled("logic")) return null;
      if (or) {
        Node fused = fusedOr((Or) e);
        if (fused != null) return fused;
      }
      List<Node> nodes = planAll(CollectionConverters.asJava(e.children()));
      if (nodes == null) return null;
      Node l = nodes.get(0);
      Node r = nodes.get(1);
      return new Node(DeviceType.BOOLEAN, l.canFail || r.canFail, b -> {
        // Spark does not evaluate the right side once the left decides; only visible when the right can fail
        ExprProgram.Label end = r.canFail ? b.newLabel() : null;
        l.emit.accept(b);
        if (end != null && or) b.jumpIfTrue(end);
        if (end != null && !or) b.jumpIfFalse(end);
        r.emit.accept(b);
        if (or) b.or();
        else b.and();
        if (end != null) b.bind(end);
      });
    }

    /** A unary expression of {@code family} whose result type is Spark's. */
    private Node unary(Expression e, String family, Expression child, BiConsumer<ExprProgram.Builder, DeviceType> op) {
      if (!enabled(family)) return null;
      Node c = plan(child);
      DeviceType type = deviceType(e);
      if (c == null || type == null) return null;
      return new Node(type, c.canFail, b -> {
        c.emit.accept(b);
        op.accept(b, type);
      });
    }

    private Node in(In in) {
      if (!enabled("in")) return null;
      if (wideDecimal(in.value())) return null;
      List<Object> values = new ArrayList<>();
      for (Expression item : CollectionConverters.asJava(in.list())) {
        if (!(item instanceof Literal l)) {
          reasons.add("IN list item " + item + " is not a literal");
          return null;
        }
        values.add(l.value());
      }
      Expression prefixes = prefixTest(in.value(), values);
      return prefixes != null ? plan(prefixes) : inValues(in.value(), values);
    }

    /**
     * {@code substring(s, 1, k) IN (...)} (TPC-H Q22's country codes) as {@code StartsWith(s, item) OR ...}, which
     * the string kernels evaluate, where every item is a string of exactly k characters: the first k characters of s
     * are the item exactly when s's bytes start with the item's (UTF-8 code points end where they end), and a shorter
     * s gives a shorter substring, which equals no item. Null where s is null, as IN. Null otherwise.
     */
    private static Expression prefixTest(Expression value, List<Object> items) {
      if (!(unwrap(value) instanceof Substring sub) || !(sub.pos() instanceof Literal pos)
          || !(sub.len() instanceof Literal len) || !Integer.valueOf(1).equals(pos.value())
          || !(len.value() instanceof Integer k) || k < 1 || items.isEmpty()) {
        return null;
      }
      Expression test = null;
      for (Object item : items) {
        if (!(item instanceof UTF8String s) || s.numChars() != k) return null;
        Expression startsWith = new StartsWith(sub.str(), Literal.create(s, sub.str().dataType()));
        test = test == null ? startsWith : new Or(test, startsWith);
      }
      return test;
    }

    /** Refuses IN over a 128-bit decimal (the instruction compares 64-bit literals), recording why. */
    private boolean wideDecimal(Expression value) {
      if (!(value.dataType() instanceof DecimalType d) || d.precision() <= DeviceType.MAX_DECIMAL_PRECISION) return false;
      reasons.add("IN over " + value + " of type " + d.simpleString() + " is not supported on the GPU (decimals of "
          + "precision up to " + DeviceType.MAX_DECIMAL_PRECISION + " are)");
      return true;
    }

    private Node inSet(InSet in) {
      if (!enabled("in")) return null;
      if (wideDecimal(in.child())) return null;
      List<Object> values = new ArrayList<>(CollectionConverters.asJava(in.hset()));
      Expression prefixes = prefixTest(in.child(), values);
      if (prefixes != null) return plan(prefixes);
      DataType type = in.child().dataType();
      if (values.contains(null) && (type instanceof FloatType || type instanceof DoubleType)) {
        // InSet answers a NaN with whether the set holds NaN, never null: unlike In and the IN instruction
        reasons.add("InSet [" + in + "] of floating values with a null in the set is not supported on the GPU");
        return null;
      }
      return inValues(in.child(), values);
    }

    private Node inValues(Expression value, List<Object> values) {
      Node v = plan(value);
      if (v == null) return null;
      boolean hasNull = values.contains(null);
      List<Object> items = new ArrayList<>();
      for (Object x : values) {
        if (x == null) continue;
        switch (v.type.kind()) {
          case FLOAT, DOUBLE -> items.add(((Number) x).doubleValue());
          case STRING, BINARY -> items.add(x instanceof UTF8String s ? s.getBytes() : (byte[]) x);
          default -> items.add(int64(x, v.type));
        }
      }
      return new Node(DeviceType.BOOLEAN, v.canFail, b -> {
        v.emit.accept(b);
        b.in(items, hasNull);
      });
    }

    // ---- String predicates ----

    /**
     * LIKE, RLIKE, StartsWith, EndsWith or Contains of a string column and a literal pattern: a match column the
     * string predicates compute (null where the string is null), read by the program.
     */
    private Node stringPredicate(BinaryExpression e) {
      if (!enabled(e instanceof RLike ? "regex" : "like")) return null;
      Expression subject = unwrap(e.left());
      Expression pattern = unwrap(e.right());
      if (!(subject instanceof AttributeReference a)) {
        reasons.add(e.nodeName() + " [" + e + "] over an expression is not supported on the GPU (only over a column)");
        return null;
      }
      if (!(pattern instanceof Literal literal)) {
        reasons.add(e.nodeName() + " [" + e + "] with a pattern that is not a literal is not supported on the GPU");
        return null;
      }
      Integer column = column(a);
      DeviceType type = deviceType(a);
      if (column == null || type == null) return null;
      if (literal.value() == null) return new Node(DeviceType.BOOLEAN, false, b -> b.nullLiteral(DeviceType.BOOLEAN));
      CompiledPattern compiled = PatternCompilation.of(e, literal.value().toString());
      if (compiled.deviceMatcher().isEmpty()) {
        reasons.add(e.nodeName() + " [" + e + "]: " + compiled.describe());
        return null;
      }
      int match = matchColumn(column, compiled.deviceMatcher().get());
      return new Node(DeviceType.BOOLEAN, false, b -> b.column(match));
    }

    /**
     * An OR chain holding several LIKE/StartsWith/EndsWith/Contains of literals on one column, as one matcher per
     * column (Aho-Corasick for literals): the other operands keep their order. Null when nothing fuses, or when an
     * operand can raise an error (moving the fused matches ahead of it could skip that error where Spark raises it).
     */
    private Node fusedOr(Or or) {
      List<Expression> operands = new ArrayList<>();
      flattenOr(or, operands);
      Map<ExprId, List<Expression>> groups = new java.util.LinkedHashMap<>();
      for (Expression operand : operands) {
        ExprId column = PatternCompilation.fusableColumn(operand);
        if (column != null) groups.computeIfAbsent(column, k -> new ArrayList<>()).add(operand);
      }
      groups.values().removeIf(group -> group.size() < 2);
      if (groups.isEmpty() || !enabled("like")) return null;
      // the other operands first: if one cannot run or can fail, the OR is planned as Spark wrote it
      Map<Expression, Node> others = new java.util.IdentityHashMap<>();
      for (Expression operand : operands) {
        if (groups.containsKey(PatternCompilation.fusableColumn(operand))) continue;
        Node node = plan(operand);
        if (node == null || node.canFail) return null;
        others.put(operand, node);
      }
      List<Node> nodes = new ArrayList<>();
      java.util.Set<ExprId> placed = new java.util.HashSet<>();
      for (Expression operand : operands) {
        ExprId column = PatternCompilation.fusableColumn(operand);
        if (!groups.containsKey(column)) {
          nodes.add(others.get(operand));
        } else if (placed.add(column)) {  // the group's matcher sits where its first member was
          List<Expression> group = groups.get(column);
          Node fused = fusedMatch(group);
          if (fused != null) nodes.add(fused);
          else group.forEach(member -> nodes.add(plan(member)));
        }
      }
      if (nodes.contains(null)) return null;
      return new Node(DeviceType.BOOLEAN, false, b -> {
        nodes.get(0).emit.accept(b);
        for (int i = 1; i < nodes.size(); i++) {
          nodes.get(i).emit.accept(b);
          b.or();
        }
      });
    }

    private static void flattenOr(Expression e, List<Expression> out) {
      e = unwrap(e);
      if (e instanceof Or or) {
        flattenOr(or.left(), out);
        flattenOr(or.right(), out);
      } else {
        out.add(e);
      }
    }

    /** One match column for the group's patterns on their column, or null when they do not fit one matcher. */
    private Node fusedMatch(List<Expression> group) {
      AttributeReference a = (AttributeReference) unwrap(((BinaryExpression) group.get(0)).left());
      Integer column = column(a);
      if (column == null || deviceType(a) == null) return null;
      StringMatcher matcher = PatternCompilation.anyOf(group);
      if (matcher == null) return null;
      int match = matchColumn(column, matcher);
      return new Node(DeviceType.BOOLEAN, false, b -> b.column(match));
    }

    // ---- Substrings ----

    /**
     * substring(str, pos, len) of a string column with integer literals pos and len (Spark's substr and left are
     * Substring by the time a plan is rewritten): a STRING column the string kernels derive before the program runs,
     * null where str is null, read by the program as its input column.
     */
    private Node substring(Substring e) {
      if (!enabled("substring")) return null;
      Expression str = unwrap(e.str());
      if (!(str instanceof AttributeReference a)) {
        reasons.add("substring [" + e + "] over an expression is not supported on the GPU (only over a column)");
        return null;
      }
      if (!(e.pos() instanceof Literal pos) || !(pos.value() instanceof Integer p)
          || !(e.len() instanceof Literal len) || !(len.value() instanceof Integer n)) {
        reasons.add("substring [" + e + "] with a position or length that is not an integer literal is not "
            + "supported on the GPU");
        return null;
      }
      Integer column = column(a);
      DeviceType type = deviceType(a);
      if (column == null || type == null) return null;
      if (type.kind() != Kind.STRING) {
        reasons.add("substring [" + e + "] of " + type + " is not supported on the GPU (of STRING it is)");
        return null;
      }
      IntSupplier derived = substringColumn(new ColumnSubstring(column, p, n));
      return new Node(DeviceType.STRING, false, b -> b.column(derived.getAsInt()), derived);
    }

    // ---- Arithmetic ----

    private static EvalMode mode(scala.Enumeration.Value mode) {
      return EvalMode.valueOf(mode.toString());
    }

    /** Remembers the Spark expression behind the next instruction, which can raise an error. */
    private void site(ExprProgram.Builder b, Expression e) {
      errorSites.put(b.nextInstruction(), e);
    }

    /**
     * Spark's NormalizeNaNAndZero (on floating grouping and join keys) as x + 0.0: -0.0 + 0.0 is 0.0, every other
     * value is kept, and a NaN result is stored as the canonical NaN.
     */
    private Node normalized(NormalizeNaNAndZero e) {
      if (!enabled("arithmetic")) return null;
      Node x = plan(e.child());
      DeviceType type = deviceType(e);
      if (x == null || type == null) return null;
      Node zero = literal(Literal.create(type.kind() == Kind.FLOAT ? (Object) 0.0f : (Object) 0.0, e.dataType()));
      return binary(type, x, zero, true, b -> b.arithmetic(Opcode.ADD, type, EvalMode.LEGACY));
    }

    private Node arithmetic(BinaryArithmetic e) {
      if (!enabled("arithmetic")) return null;
      List<Node> nodes = planAll(List.of(e.left(), e.right()));
      DeviceType type = deviceType(e);
      if (nodes == null || type == null) return null;
      Opcode op = e instanceof Add ? Opcode.ADD : e instanceof Subtract ? Opcode.SUBTRACT : Opcode.MULTIPLY;
      EvalMode mode = mode(e.evalMode());
      Node l = nodes.get(0);
      Node r = nodes.get(1);
      int leftDigits = l.type.precision();
      int rightDigits = r.type.precision();
      boolean narrowProduct = op == Opcode.MULTIPLY && l.type.kind() == Kind.DECIMAL
          && r.type.kind() == Kind.DECIMAL && type.scale() == l.type.scale() + r.type.scale();
      if (type.kind() == Kind.DECIMAL128 && !narrowProduct) {
        // 128-bit arithmetic takes 128-bit operands: a 64-bit decimal is widened first, exactly (two 64-bit factors
        // whose exact product is the result multiply as they are)
        l = widened(l);
        r = widened(r);
      }
      Node left = l;
      Node right = r;
      if (!probe(e, List.of(left.type, right.type), b -> b.arithmetic(op, type, mode, leftDigits, rightDigits))) {
        return null;
      }
      Node n = binary(type, left, right, true, b -> {
        site(b, e);
        b.arithmetic(op, type, mode, leftDigits, rightDigits);
      });
      return new Node(type, n.canFail || mode == EvalMode.ANSI, n.emit);
    }

    /** A 64-bit decimal node as the 128-bit decimal of the fewest digits (19) at its scale; others unchanged. */
    private static Node widened(Node n) {
      if (n.type.kind() != Kind.DECIMAL) return n;
      DeviceType wide = DeviceType.decimal(DeviceType.MAX_DECIMAL_PRECISION + 1, n.type.scale());
      return new Node(wide, n.canFail, b -> {
        n.emit.accept(b);
        b.cast(wide, EvalMode.LEGACY);
      });
    }

    private Node division(BinaryArithmetic e) {
      if (!enabled("arithmetic")) return null;
      EvalMode mode = mode(e.evalMode());
      if (mode == EvalMode.TRY && !(e instanceof Divide)) {
        reasons.add("try mode of " + e.nodeName() + " [" + e + "] is not supported on the GPU");
        return null;
      }
      List<Node> nodes = planAll(List.of(e.left(), e.right()));
      DeviceType type = deviceType(e);
      if (nodes == null || type == null) return null;
      Opcode op = e instanceof Divide ? Opcode.DIVIDE : e instanceof IntegralDivide ? Opcode.INTEGRAL_DIVIDE
          : Opcode.REMAINDER;
      int dividendDigits = nodes.get(0).type.precision();
      int divisorDigits = nodes.get(1).type.precision();
      boolean wide = op == Opcode.DIVIDE && (type.kind() == Kind.DECIMAL128
          || nodes.stream().anyMatch(n -> n.type.kind() == Kind.DECIMAL128));
      // a 128-bit division takes 128-bit operands: a 64-bit decimal is widened first, exactly
      Node dividend = wide ? widened(nodes.get(0)) : nodes.get(0);
      Node divisor = wide ? widened(nodes.get(1)) : nodes.get(1);
      if (!probe(e, List.of(divisor.type, dividend.type),
          b -> b.arithmetic(op, type, mode, dividendDigits, divisorDigits))) {
        return null;
      }
      // Spark evaluates the divisor first, and the dividend only when the divisor is neither null nor (outside ANSI
      // mode) zero: the check only matters when the dividend could raise an error
      boolean check = dividend.canFail;
      boolean canFail = dividend.canFail || divisor.canFail || mode == EvalMode.ANSI;
      return new Node(type, canFail, b -> {
        ExprProgram.Label skip = check ? b.newLabel() : null;
        divisor.emit.accept(b);
        if (check) b.divisorCheck(skip, mode);
        dividend.emit.accept(b);
        site(b, e);
        b.arithmetic(op, type, mode, dividendDigits, divisorDigits);
        if (check) b.bind(skip);
      });
    }

    private Node negate(UnaryMinus e) {
      if (!enabled("arithmetic")) return null;
      EvalMode mode = e.failOnError() ? EvalMode.ANSI : EvalMode.LEGACY;
      Node c = plan(e.child());
      if (c == null) return null;
      if (!probe(e, List.of(c.type), b -> b.negate(mode))) return null;
      return new Node(c.type, c.canFail || mode == EvalMode.ANSI, b -> {
        c.emit.accept(b);
        site(b, e);
        b.negate(mode);
      });
    }

    private Node cast(Cast e) {
      if (!enabled("cast")) return null;
      Node c = plan(e.child());
      DeviceType to = deviceType(e);
      if (c == null || to == null) return null;
      DeviceType from = c.type;
      if (from.equals(to)) return c;
      if (from.kind() == Kind.TIMESTAMP && to.kind() == Kind.TIMESTAMP
          || from.kind() == Kind.DATE && to.kind() == Kind.TIMESTAMP && to.timeZone() != null
          || from.kind() == Kind.TIMESTAMP && from.timeZone() != null && to.kind() == Kind.DATE) {
        if (!utc(settings.timeZone())) {
          reasons.add("cast " + e + " depends on the session time zone " + settings.timeZone()
              + ", and the GPU converts dates and timestamps only in UTC");
          return null;
        }
        if (from.kind() == Kind.TIMESTAMP && to.kind() == Kind.TIMESTAMP) {
          return new Node(to, c.canFail, c.emit);  // with and without zone hold the same micros in UTC
        }
      }
      EvalMode mode = mode(e.evalMode());
      if (!probe(e, List.of(from), b -> b.cast(to, mode))) return null;
      boolean canFail = mode != EvalMode.TRY && (mode == EvalMode.ANSI || to.kind() == Kind.TIMESTAMP);
      return new Node(to, c.canFail || canFail, b -> {
        c.emit.accept(b);
        site(b, e);
        b.cast(to, mode);
      });
    }

    private static boolean utc(String timeZone) {
      return ZoneId.of(timeZone).normalized().equals(ZoneOffset.UTC);
    }

    /**
     * Whether the program builder accepts {@code op} on operands of {@code types}: its type rules are the single
     * statement of what the device computes. Records the reason otherwise.
     */
    private boolean probe(Expression e, List<DeviceType> types, Consumer<ExprProgram.Builder> op) {
      ExprProgram.Builder b = ExprProgram.builder(types);
      for (int i = 0; i < types.size(); i++) b.column(i);
      try {
        op.accept(b);
        return true;
      } catch (IllegalArgumentException ex) {
        reasons.add(e.nodeName() + " [" + e + "] is not supported on the GPU: "
            + ex.getMessage().replace("invalid expression program: ", ""));
        return false;
      }
    }

    // ---- Conditionals ----

    private Node conditional(Expression e, List<Tuple2<Expression, Expression>> branches,
        Optional<Expression> otherwise) {
      if (!enabled("conditional")) return null;
      DeviceType type = deviceType(e);
      List<Node> conditions = new ArrayList<>();
      List<Node> values = new ArrayList<>();
      for (Tuple2<Expression, Expression> branch : branches) {
        conditions.add(plan(branch._1()));
        values.add(plan(branch._2()));
      }
      Node elseNode = otherwise.map(this::plan).orElse(null);
      if (type == null || conditions.contains(null) || values.contains(null)
          || otherwise.isPresent() && elseNode == null) {
        return null;
      }
      boolean canFail = conditions.stream().anyMatch(Node::canFail) || values.stream().anyMatch(Node::canFail)
          || elseNode != null && elseNode.canFail;
      return new Node(type, canFail, b -> {
        ExprProgram.Label end = b.newLabel();
        for (int i = 0; i < conditions.size(); i++) {
          ExprProgram.Label next = b.newLabel();
          conditions.get(i).emit.accept(b);
          b.jumpIfNotTrue(next);
          values.get(i).emit.accept(b);
          b.jump(end);
          b.bind(next);
        }
        if (elseNode != null) elseNode.emit.accept(b);
        else b.nullLiteral(type);
        b.bind(end);
      });
    }

    private Node coalesce(Coalesce e) {
      if (!enabled("conditional")) return null;
      DeviceType type = deviceType(e);
      List<Node> children = planAll(CollectionConverters.asJava(e.children()));
      if (type == null || children == null) return null;
      if (children.size() == 1) return children.get(0);
      return new Node(type, children.stream().anyMatch(Node::canFail), b -> {
        ExprProgram.Label end = b.newLabel();
        for (int i = 0; i < children.size() - 1; i++) {
          children.get(i).emit.accept(b);
          b.coalesceJump(end);
        }
        children.get(children.size() - 1).emit.accept(b);
        b.bind(end);
      });
    }
  }
}
