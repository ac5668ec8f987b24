/*
 * DynamoDB Local listening on one loopback address, never on every interface.
 *
 * Why: DynamoDB Local has no bind option. Its DynamoDBProxyServer builds a Jetty `Server(port)`,
 * whose connector has no host and so binds the wildcard address: anyone on the developer's network
 * could read and change the local table (codes, attempt counters, refresh families) with the
 * published local credentials. This launcher builds the server exactly as DynamoDB Local's own
 * main does (ServerRunner.createServerFromCommandLineArgs, the same arguments), names the host on
 * its connector before it starts, and checks the address it really bound.
 *
 * local/dynamodb.ts compiles it once (with the JRE's own jdk.compiler module) and runs the class:
 *   java -cp DynamoDBLocal.jar:<classes> DynamoDbLoopback <loopback address> <DynamoDB Local arguments>
 * It also runs as it is, in Java's single-file source mode (slower: it compiles at every start):
 *   java -cp DynamoDBLocal.jar local/dynamodb-loopback.java 127.0.0.1 -inMemory -port 8000
 * The jar's manifest puts its DynamoDBLocal_lib/ (Jetty among them) on the class path.
 *
 * It fails closed: a host that is not a literal loopback address, a jar whose server is built
 * another way (no private `server` field, a connector that is not a ServerConnector) or a socket
 * bound elsewhere ends the process with status 2 and a one-line reason on stderr, before or
 * instead of serving anything.
 */
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

class DynamoDbLoopback {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) fail("usage: dynamodb-loopback.java <loopback address> <DynamoDB Local arguments>");
    // Only a literal address: getByName looks nothing up for one (a name would resolve as the
    // machine's resolver says).
    String host = args[0];
    boolean literal = host.matches("\\d{1,3}(\\.\\d{1,3}){3}") || host.matches("[0-9a-fA-F]*:[0-9a-fA-F:.]*");
    if (!literal || !InetAddress.getByName(host).isLoopbackAddress()) fail("not a literal loopback address: " + host);

    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    Server jetty = jettyServerOf(proxy);
    Connector[] connectors = jetty.getConnectors();
    if (connectors.length == 0) fail("DynamoDB Local's Jetty server has no connector");
    for (Connector connector : connectors) {
      if (!(connector instanceof ServerConnector)) fail("unexpected Jetty connector " + connector.getClass().getName());
      ((ServerConnector) connector).setHost(host);
    }

    // start() reports a port it cannot bind (in use) on stderr and stops the server itself.
    proxy.start();
    if (!jetty.isStarted()) System.exit(1);
    for (Connector connector : connectors) {
      Object transport = ((ServerConnector) connector).getTransport();
      InetSocketAddress bound = transport instanceof ServerSocketChannel
          ? (InetSocketAddress) ((ServerSocketChannel) transport).getLocalAddress()
          : null;
      if (bound == null || !bound.getAddress().isLoopbackAddress()) {
        jetty.stop();
        fail("DynamoDB Local bound " + bound + ", not a loopback address");
      }
    }
    jetty.join();
  }

  /** The Jetty server DynamoDBProxyServer keeps private (its constructor's `new Server(port)`). */
  private static Server jettyServerOf(DynamoDBProxyServer proxy) throws IllegalAccessException {
    try {
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      return (Server) field.get(proxy);
    } catch (NoSuchFieldException | ClassCastException error) {
      fail("this DynamoDB Local keeps its Jetty server elsewhere (" + error + "): update local/dynamodb-loopback.java");
      throw new AssertionError(error);
    }
  }

  private static void fail(String reason) {
    System.err.println("dynamodb-loopback: " + reason);
    System.exit(2);
  }
}
