"""Hypothesis strategies for kernels, inputs, launches, schedules and target options."""
