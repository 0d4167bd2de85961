// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Countdown, formatLeft } from './countdown.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Countdown', () => {
  it('formats what is left to the second', () => {
    expect(formatLeft(299_999)).toBe('4:59');
    expect(formatLeft(3_723_000)).toBe('1:02:03');
    expect(formatLeft(-5)).toBe('0:00');
  });

  it('counts down each second and says when the deadline passed', () => {
    vi.useFakeTimers();
    let now = Date.parse('2026-12-03T12:00:00.000Z');
    render(<Countdown deadline="2026-12-03T12:00:02.000Z" now={() => now} />);
    expect(screen.getByText('expires in 0:02')).toBeTruthy();
    now += 1000;
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByText('expires in 0:01')).toBeTruthy();
    now += 1000;
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByText('expired')).toBeTruthy();
  });
});
