package io.healbench.testsupport;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A test's own connection to the RabbitMQ of the Quarkus app under test: it declares what a service's connector would,
 * publishes as another service would, and takes what the app sent from its queues, waiting for it where it comes later.
 * Message bodies are bytes; a {@link BodyReader} (a protobuf message's {@code parseFrom}) reads them.
 */
public final class TestBroker implements AutoCloseable {

    /** Reads a message body. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(byte[] body) throws IOException;
    }

    /** Reads a message that came through an exchange, knowing the key it was published with. */
    @FunctionalInterface
    public interface MessageReader<T> {
        T read(String routingKey, byte[] body) throws IOException;
    }

    private static final long POLL_MILLIS = 100;

    private final Connection connection;
    private final Channel channel;

    private TestBroker(Connection connection, Channel channel) {
        this.connection = connection;
        this.channel = channel;
    }

    /**
     * Connects where the app under test does: to the broker and virtual host of its configuration (in a Quarkus test,
     * what {@link RabbitMqTestResource} gave it).
     */
    public static TestBroker connect(String clientName) throws IOException, TimeoutException {
        Config config = ConfigProvider.getConfig();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(config.getValue("rabbitmq-host", String.class));
        factory.setPort(config.getValue("rabbitmq-port", Integer.class));
        factory.setUsername(config.getValue("rabbitmq-username", String.class));
        factory.setPassword(config.getValue("rabbitmq-password", String.class));
        factory.setVirtualHost(config.getOptionalValue("rabbitmq-virtual-host", String.class)
                .orElse(RabbitMqTestResource.DEFAULT_VIRTUAL_HOST));
        Connection connection = factory.newConnection(clientName);
        return new TestBroker(connection, connection.createChannel());
    }

    /** A durable exchange, as the services' connectors declare theirs, so that either side may come first. */
    public void declareExchange(String exchange, String type) throws IOException {
        channel.exchangeDeclare(exchange, type, true);
    }

    /** A durable queue bound to {@code exchange} with {@code routingKey}, as an agent worker's connector declares it. */
    public void declareQueue(String queue, String exchange, String routingKey) throws IOException {
        channel.queueDeclare(queue, true, false, false, null);
        channel.queueBind(queue, exchange, routingKey);
    }

    /** A queue bound to {@code exchange} with {@code routingKey} that goes once its last consumer has, emptied now. */
    public void declareTemporaryQueue(String queue, String exchange, String routingKey) throws IOException {
        channel.queueDeclare(queue, false, false, true, null);
        channel.queueBind(queue, exchange, routingKey);
        channel.queuePurge(queue);
    }

    public void purge(String queue) throws IOException {
        channel.queuePurge(queue);
    }

    /** How many messages wait in {@code queue} now. */
    public long queued(String queue) throws IOException {
        return channel.messageCount(queue);
    }

    /**
     * Waits at most {@code timeout} until {@code queue} has a consumer: a service's connector declares and binds its
     * queue before it consumes, so from then on what is published to the queue's exchange reaches it. Published
     * earlier, into an app's fresh virtual host, a message finds no binding and the exchange drops it.
     */
    public void awaitConsumer(String queue, Duration timeout) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            // A passive declare of a queue that does not exist yet closes its channel: each look gets a channel of its own.
            try (Channel probe = connection.createChannel()) {
                if (probe.consumerCount(queue) > 0) {
                    return;
                }
            } catch (IOException notDeclaredYet) {
                // the connector has not declared it yet
            }
            Thread.sleep(POLL_MILLIS);
        }
        throw new TimeoutException("no consumer on queue " + queue + " after " + timeout);
    }

    /** Publishes a persistent message, as the services publish theirs. */
    public void publish(String exchange, String routingKey, byte[] body) throws IOException {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .contentType("application/octet-stream")
                .deliveryMode(2)
                .build();
        channel.basicPublish(exchange, routingKey, properties, body);
    }

    /**
     * Takes (and acks) up to {@code count} messages of {@code queue} that {@code wanted} accepts, waiting at most
     * {@code timeout} for them; the messages it takes meanwhile that {@code wanted} refuses are dropped.
     */
    public <T> List<T> take(String queue, BodyReader<T> reader, Predicate<T> wanted, int count, Duration timeout)
            throws IOException, InterruptedException {
        List<T> taken = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (taken.size() < count && System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(queue, true);
            if (response == null) {
                Thread.sleep(POLL_MILLIS);
                continue;
            }
            T message = reader.read(response.getBody());
            if (wanted.test(message)) {
                taken.add(message);
            }
        }
        return taken;
    }

    /** Takes (and acks) every message waiting in {@code queue} now. */
    public <T> List<T> drain(String queue, BodyReader<T> reader) throws IOException {
        List<T> taken = new ArrayList<>();
        for (GetResponse response = channel.basicGet(queue, true); response != null; response = channel.basicGet(queue, true)) {
            taken.add(reader.read(response.getBody()));
        }
        return taken;
    }

    /**
     * Waits at most {@code timeout} for a message of {@code queue} whose body {@code wanted} accepts and takes only that
     * one: the others go back to the queue, for the tests they belong to.
     */
    public Optional<byte[]> awaitAndTake(String queue, Predicate<byte[]> wanted, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(queue, false);
            if (response == null) {
                Thread.sleep(POLL_MILLIS);
                continue;
            }
            if (wanted.test(response.getBody())) {
                channel.basicAck(response.getEnvelope().getDeliveryTag(), false);
                return Optional.of(response.getBody());
            }
            channel.basicNack(response.getEnvelope().getDeliveryTag(), false, true);
        }
        return Optional.empty();
    }

    /**
     * Listens from now on to what is published to {@code exchange} under {@code bindingKey}, through a queue of this
     * connection's own.
     */
    public <T> Subscription<T> subscribe(String exchange, String bindingKey, MessageReader<T> reader) throws IOException {
        String queue = channel.queueDeclare("test-subscription-" + UUID.randomUUID(), false, true, true, null).getQueue();
        channel.queueBind(queue, exchange, bindingKey);
        return new Subscription<>(queue, reader);
    }

    /** What a {@link #subscribe subscription} received, kept for the test to look for. */
    public final class Subscription<T> {

        private final String queue;
        private final MessageReader<T> reader;
        private final List<T> received = new ArrayList<>();

        private Subscription(String queue, MessageReader<T> reader) {
            this.queue = queue;
            this.reader = reader;
        }

        /** The first message received that {@code wanted} accepts, waiting at most {@code timeout} for it. */
        public Optional<T> await(Predicate<T> wanted, Duration timeout) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Optional<T> found = received.stream().filter(wanted).findFirst();
                if (found.isPresent() || System.nanoTime() > deadline) {
                    return found;
                }
                if (!receiveOne()) {
                    Thread.sleep(POLL_MILLIS);
                }
            }
        }

        /** Every message received so far, what waits now included, that {@code wanted} accepts. */
        public List<T> matching(Predicate<T> wanted) throws IOException {
            while (receiveOne()) {
                // until nothing waits
            }
            return received.stream().filter(wanted).toList();
        }

        /** What was received so far, without looking for more. */
        public List<T> received() {
            return List.copyOf(received);
        }

        private boolean receiveOne() throws IOException {
            GetResponse response = channel.basicGet(queue, true);
            if (response == null) {
                return false;
            }
            received.add(reader.read(response.getEnvelope().getRoutingKey(), response.getBody()));
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
