# Sourced by the examples' scripts: checks the build, computes the classpath once, and defines run_example.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# JAVA_OPTS adds JVM options (default -Xmx8g); MAVEN_ARGS adds Maven options (a private -Dmaven.repo.local=...).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=0.1.0-SNAPSHOT
plugin=$root/spark-plugin/target/sparkwarp-$version.jar
examples=$root/examples/target/sparkwarp-examples-$version.jar
for jar in "$plugin" "$examples"; do
  if [[ ! -f $jar ]]; then
    echo "$(basename "$0"): $jar is missing; build first at $root: mvn -B -ntp -DskipTests install" >&2
    exit 2
  fi
done

# Spark, Scala, the TPC-H generator and XChart from the local Maven repository (computed once per pom change;
# every scope but the test libraries: Spark is "provided", and Maven's compile scope misses some of its netty
# modules); sparkwarp and JCuda come from the plugin jar alone, as they would in a Spark installation.
# A caller that has them already (a test inside the build, before anything is installed) passes
# SPARKWARP_CLASSPATH and SPARKWARP_JVM_OPENS instead.
if [[ -n ${SPARKWARP_CLASSPATH:-} ]]; then
  example_classpath=$SPARKWARP_CLASSPATH
  example_jvm_opens=${SPARKWARP_JVM_OPENS:-}
else
  classpath_file=$root/examples/target/demo-classpath.txt
  opens_file=$root/examples/target/demo-jvm-opens.txt
  if [[ ! -s $classpath_file || ! -s $opens_file || $root/examples/pom.xml -nt $classpath_file
        || $root/pom.xml -nt $opens_file ]]; then
    # shellcheck disable=SC2086 # MAVEN_ARGS is a whitespace-separated option list
    mvn -B -q -ntp ${MAVEN_ARGS:-} -f "$root/pom.xml" -pl examples dependency:build-classpath \
      -Dmdep.outputFile="$classpath_file" \
      -DexcludeGroupIds=io.sparkwarp,org.jcuda,org.junit.jupiter,org.junit.platform,org.opentest4j,org.apiguardian
    # the --add-opens list Spark needs on Java 17: one list, kept in the root pom for the tests too
    # shellcheck disable=SC2086
    mvn -B -q -ntp ${MAVEN_ARGS:-} -f "$root/pom.xml" -N help:evaluate -Dexpression=spark.test.jvm.opens \
      -Doutput="$opens_file"
  fi
  example_classpath=$plugin:$examples:$(cat "$classpath_file")
  example_jvm_opens=$(cat "$opens_file")
fi

# run_example MAIN-CLASS ARGS...: runs an examples class in this JVM setting (replaces the shell)
run_example() {
  # shellcheck disable=SC2086 # JAVA_OPTS and the opens list are whitespace-separated option lists
  exec java ${JAVA_OPTS:--Xmx8g} $example_jvm_opens -cp "$example_classpath" "$@"
}
