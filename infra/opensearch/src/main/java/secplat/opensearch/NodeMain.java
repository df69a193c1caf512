package secplat.opensearch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasPlugin;
import org.opensearch.index.reindex.ReindexPlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch node in this JVM, with the modules and the k-NN plugin loaded from the classpath (the
 * distribution's plugin installer is not needed: Maven resolved every jar). One JVM per node, so a test can
 * kill -9 a node as a machine would die. Settings come from system properties (infra/opensearch/cluster sets
 * them): secplat.node (index), secplat.nodes (count), secplat.http_port / secplat.transport_port (the first
 * node's; node i adds i), secplat.home (this node's directory), secplat.cluster (cluster name), secplat.knn
 * (false: no k-NN plugin, what a cluster without it answers is tested).
 * SIGTERM closes the node cleanly (a shutdown hook), so its data is whole for the next start.
 */
public final class NodeMain {

    /** Node's constructor that takes classpath plugins is protected: this subclass only opens it. */
    static final class PluginNode extends Node {
        PluginNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }
    }

    /** The k-NN plugin comes from its zip (unpacked into target/lib), not a compile-time dependency. */
    static final String KNN_PLUGIN = "org.opensearch.knn.plugin.KNNPlugin";

    static List<Class<? extends Plugin>> plugins() throws ClassNotFoundException {
        List<Class<? extends Plugin>> out = new ArrayList<>(List.of(
            Netty4Plugin.class, CommonAnalysisPlugin.class, PainlessPlugin.class, ReindexPlugin.class,
            MapperExtrasPlugin.class));
        if (Boolean.parseBoolean(System.getProperty("secplat.knn", "true"))) {  // false: a cluster without it
            out.add(Class.forName(KNN_PLUGIN).asSubclass(Plugin.class));
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        int index = Integer.getInteger("secplat.node", 0);
        int nodes = Integer.getInteger("secplat.nodes", 1);
        int httpPort = Integer.getInteger("secplat.http_port", 9200);
        int transportPort = Integer.getInteger("secplat.transport_port", 9300);
        Path home = Path.of(System.getProperty("secplat.home", "opensearch-data/node-" + index)).toAbsolutePath();
        String name = "node-" + index;
        Files.createDirectories(home.resolve("config"));

        Settings.Builder settings = Settings.builder()
            .put("cluster.name", System.getProperty("secplat.cluster", "secplat"))
            .put("node.name", name)
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort + index)
            .put("transport.port", transportPort + index)
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            // a developer's disk is often fuller than a server's: never turn indexes read-only for it
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("action.destructive_requires_name", true);
        if (nodes == 1) {
            settings.put("discovery.type", "single-node");
        } else {
            List<String> seeds = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                seeds.add("127.0.0.1:" + (transportPort + i));
                names.add("node-" + i);
            }
            settings.putList("discovery.seed_hosts", seeds);
            settings.putList("cluster.initial_cluster_manager_nodes", names);
        }
        Environment env = InternalSettingsPreparer.prepareEnvironment(
            settings.build(), Collections.emptyMap(), home.resolve("config"), () -> name);
        Node node = new PluginNode(env, plugins());
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("closing " + name + ": " + e);
            } finally {
                closed.countDown();
            }
        }, "secplat-node-shutdown"));
        node.start();
        System.out.println("secplat node " + name + " started: http://127.0.0.1:" + (httpPort + index));
        closed.await();
    }

    private NodeMain() {
    }
}
