package io.pathfence.sct.cli;

import io.pathfence.sct.RequestRecord;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads request records: a header naming at least the columns {@code path},
 * {@code arrival_ms} and {@code departure_ms} (any order, other columns ignored), then
 * one request a row, sorted by arrival. Times are milliseconds on any fixed origin,
 * fractions allowed, never negative. Rows are numbered as lines, the header being row 1;
 * blank lines are skipped. Fields are separated by commas and stripped of surrounding
 * blanks; a field wrapped in double quotes may hold commas, and {@code ""} inside it
 * stands for one quote (RFC 4180), but it must close on its own line. (Our own splitter
 * rather than a CSV library: three columns, and every error must name the row and the
 * column by its header name.)
 */
final class RecordsCsv {

	static final String PATH = "path";
	static final String ARRIVAL = "arrival_ms";
	static final String DEPARTURE = "departure_ms";

	private RecordsCsv() {
	}

	static List<RequestRecord> read(BufferedReader in) throws IOException, BadInputException {
		String header = in.readLine();
		int row = 1;
		while (header != null && header.isBlank()) {
			header = in.readLine();
			row++;
		}
		if (header == null) {
			throw BadInputException.at(row, PATH, (row == 1 ? "empty file" : "only blank lines")
					+ ": expected the header " + PATH + "," + ARRIVAL + "," + DEPARTURE);
		}
		if (header.startsWith("\uFEFF")) {
			header = header.substring(1);
		}
		String[] names = split(header, row, new String[0]);
		int pathAt = indexOf(names, PATH, row);
		int arrivalAt = indexOf(names, ARRIVAL, row);
		int departureAt = indexOf(names, DEPARTURE, row);
		int needed = Math.max(pathAt, Math.max(arrivalAt, departureAt)) + 1;

		List<RequestRecord> records = new ArrayList<>();
		double previousArrival = Double.NEGATIVE_INFINITY;
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			row++;
			if (line.isBlank()) {
				continue;
			}
			String[] fields = split(line, row, names);
			if (fields.length < needed) {
				String missing = DEPARTURE;
				int firstMissing = Integer.MAX_VALUE;
				for (int k = 0; k < 3; k++) {
					int at = k == 0 ? pathAt : k == 1 ? arrivalAt : departureAt;
					if (at >= fields.length && at < firstMissing) {
						firstMissing = at;
						missing = k == 0 ? PATH : k == 1 ? ARRIVAL : DEPARTURE;
					}
				}
				throw BadInputException.at(row, missing, "missing value");
			}
			String path = fields[pathAt];
			if (path.isEmpty()) {
				throw BadInputException.at(row, PATH, "empty");
			}
			double arrival = time(fields[arrivalAt], row, ARRIVAL);
			double departure = time(fields[departureAt], row, DEPARTURE);
			if (arrival < previousArrival) {
				throw BadInputException.at(row, ARRIVAL, "arrival " + fields[arrivalAt]
						+ " is before the previous row's; rows must be sorted by arrival");
			}
			if (departure < arrival) {
				throw BadInputException.at(row, DEPARTURE,
						"departure " + fields[departureAt] + " is before arrival " + fields[arrivalAt]);
			}
			previousArrival = arrival;
			records.add(new RequestRecord(path, nanos(arrival), nanos(departure)));
		}
		if (records.isEmpty()) {
			throw BadInputException.at(row + 1, PATH, "no records after the header");
		}
		return records;
	}

	private static int indexOf(String[] names, String wanted, int row) throws BadInputException {
		for (int i = 0; i < names.length; i++) {
			if (names[i].equals(wanted)) {
				return i;
			}
		}
		throw BadInputException.at(row, wanted,
				"missing from the header (expected " + PATH + "," + ARRIVAL + "," + DEPARTURE + ")");
	}

	private static double time(String field, int row, String column) throws BadInputException {
		if (field.isEmpty()) {
			throw BadInputException.at(row, column, "missing value");
		}
		double value;
		try {
			value = Double.parseDouble(field);
		}
		catch (NumberFormatException e) {
			throw BadInputException.at(row, column, "not a number: '" + field + "'");
		}
		if (Double.isNaN(value) || Double.isInfinite(value)) {
			throw BadInputException.at(row, column, "not a finite number: '" + field + "'");
		}
		if (value < 0) {
			throw BadInputException.at(row, column, "negative time " + field);
		}
		if (value > 9.2e12) {
			throw BadInputException.at(row, column, "time " + field + " ms is too large");
		}
		return value;
	}

	private static long nanos(double millis) {
		return Math.round(millis * 1e6);
	}

	/**
	 * The fields of one line; {@code names} labels a column in an error (its number where
	 * there is no name).
	 */
	private static String[] split(String line, int row, String[] names) throws BadInputException {
		List<String> fields = new ArrayList<>();
		int i = 0;
		while (true) {
			String column = fields.size() < names.length ? names[fields.size()] : String.valueOf(fields.size() + 1);
			while (i < line.length() && line.charAt(i) != ',' && Character.isWhitespace(line.charAt(i))) {
				i++;
			}
			if (i < line.length() && line.charAt(i) == '"') {
				StringBuilder quoted = new StringBuilder();
				i++;
				while (true) {
					if (i >= line.length()) {
						throw BadInputException.at(row, column, "quoted field not closed on its line");
					}
					char c = line.charAt(i++);
					if (c != '"') {
						quoted.append(c);
					}
					else if (i < line.length() && line.charAt(i) == '"') {
						quoted.append('"');
						i++;
					}
					else {
						break;
					}
				}
				while (i < line.length() && line.charAt(i) != ',' && Character.isWhitespace(line.charAt(i))) {
					i++;
				}
				if (i < line.length() && line.charAt(i) != ',') {
					throw BadInputException.at(row, column, "text after the closing quote");
				}
				fields.add(quoted.toString());
			}
			else {
				int comma = line.indexOf(',', i);
				int end = comma < 0 ? line.length() : comma;
				fields.add(line.substring(i, end).strip());
				i = end;
			}
			if (i >= line.length()) {
				return fields.toArray(new String[0]);
			}
			i++;
		}
	}

}
