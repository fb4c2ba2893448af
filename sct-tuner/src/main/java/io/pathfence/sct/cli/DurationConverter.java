package io.pathfence.sct.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/**
 * Reads {@code 50ms}, {@code 0.1s}, {@code 60s}, {@code 2m} (a bare number is
 * milliseconds).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

	@Override
	public Duration convert(String value) {
		String v = value.strip().toLowerCase(Locale.ROOT);
		double factorNanos;
		String number;
		if (v.endsWith("ms")) {
			factorNanos = 1e6;
			number = v.substring(0, v.length() - 2);
		}
		else if (v.endsWith("s")) {
			factorNanos = 1e9;
			number = v.substring(0, v.length() - 1);
		}
		else if (v.endsWith("m")) {
			factorNanos = 60e9;
			number = v.substring(0, v.length() - 1);
		}
		else {
			factorNanos = 1e6;
			number = v;
		}
		double amount;
		try {
			amount = Double.parseDouble(number);
		}
		catch (NumberFormatException e) {
			throw new CommandLine.TypeConversionException("not a duration: '" + value + "' (try 50ms, 0.1s, 60s)");
		}
		long nanos = Math.round(amount * factorNanos);
		if (!(amount > 0) || nanos <= 0) {
			throw new CommandLine.TypeConversionException("not a positive duration: '" + value + "'");
		}
		return Duration.ofNanos(nanos);
	}

}
