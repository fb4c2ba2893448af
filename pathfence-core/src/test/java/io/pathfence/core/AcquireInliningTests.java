package io.pathfence.core;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@link PathFence#acquire} small enough for HotSpot's C2 to inline it into a hot
 * caller. Inlined, a ticket granted at once and released in the same compiled method (the
 * starter's filter) and the waiter passed in are never allocated; not inlined, both
 * escape, and every request allocates them. The limit is {@code -XX:FreqInlineSize}'s
 * default on x86-64 and AArch64; what the JIT then does is measured by
 * {@code FilterBenchmark} with {@code -prof gc}, not here.
 */
class AcquireInliningTests {

	/**
	 * The default of {@code -XX:FreqInlineSize}: the most bytecode C2 inlines when hot.
	 */
	private static final int FREQ_INLINE_SIZE = 325;

	@Test
	void acquireIsWithinWhatTheJitInlinesIntoAHotCaller() throws IOException {
		assertThat(codeLength(PathFence.class, "acquire")).isPositive().isLessThanOrEqualTo(FREQ_INLINE_SIZE);
	}

	@Test
	void releaseIsWithinWhatTheJitInlinesIntoAHotCaller() throws IOException {
		assertThat(codeLength(PathFence.class, "release")).isPositive().isLessThanOrEqualTo(FREQ_INLINE_SIZE);
	}

	/**
	 * The bytecode length of the one method of that name, read from the class file (JVMS
	 * 4.1, 4.4, 4.6, 4.7.3).
	 */
	private static int codeLength(Class<?> type, String method) throws IOException {
		try (InputStream raw = type.getResourceAsStream(type.getSimpleName() + ".class");
				DataInputStream in = new DataInputStream(raw)) {
			in.skipNBytes(8); // magic, minor and major version
			String[] utf8 = new String[in.readUnsignedShort()];
			for (int i = 1; i < utf8.length; i++) {
				int tag = in.readUnsignedByte();
				switch (tag) {
					case 1 -> utf8[i] = in.readUTF();
					case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
					case 15 -> in.skipNBytes(3);
					case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
					case 5, 6 -> {
						in.skipNBytes(8);
						i++; // a long or double takes two entries
					}
					default -> throw new IOException("unknown constant pool tag " + tag);
				}
			}
			in.skipNBytes(6); // access flags, this class, super class
			in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
			int fields = in.readUnsignedShort();
			for (int f = 0; f < fields; f++) {
				in.skipNBytes(6);
				skipAttributes(in);
			}
			int found = -1;
			int methods = in.readUnsignedShort();
			for (int m = 0; m < methods; m++) {
				in.skipNBytes(2);
				String name = utf8[in.readUnsignedShort()];
				in.skipNBytes(2);
				int attributes = in.readUnsignedShort();
				for (int a = 0; a < attributes; a++) {
					String attribute = utf8[in.readUnsignedShort()];
					int length = in.readInt();
					if (name.equals(method) && attribute.equals("Code")) {
						assertThat(found).as("more than one method named " + method).isEqualTo(-1);
						in.skipNBytes(4); // max stack, max locals
						found = in.readInt();
						in.skipNBytes(length - 8);
					}
					else {
						in.skipNBytes(length);
					}
				}
			}
			return found;
		}
	}

	private static void skipAttributes(DataInputStream in) throws IOException {
		int attributes = in.readUnsignedShort();
		for (int a = 0; a < attributes; a++) {
			in.skipNBytes(2);
			in.skipNBytes(in.readInt());
		}
	}

}
