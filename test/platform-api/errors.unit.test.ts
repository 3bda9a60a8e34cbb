/** The platform API's error helpers, pure: narrowing an error by code, reading Retry-After. */
import { describe, expect, it } from 'vitest';
import { NotFoundError, isPlatformApiError, parseRetryAfter } from '../../platform-api';

describe('isPlatformApiError', () => {
  it('narrows by code and rejects foreign errors', () => {
    const e: unknown = new NotFoundError('gone', { status: 404 });
    expect(isPlatformApiError(e)).toBe(true);
    expect(isPlatformApiError(e, 'NOT_FOUND')).toBe(true);
    expect(isPlatformApiError(e, 'NETWORK')).toBe(false);
    expect(isPlatformApiError(new Error('x'))).toBe(false);
    expect(isPlatformApiError({ code: 'NOT_FOUND' })).toBe(false);
    expect(isPlatformApiError(null)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
