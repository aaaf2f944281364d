"""The command line: parse, call one core function, render. The only place that prints."""
