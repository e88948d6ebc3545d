export * from './common.ts';
export * from './errors.ts';
export * from './identity.ts';
export * from './friendship.ts';
export * from './tasks.ts';
export * from './operations.ts';
export * from './subjects.ts';
export * from './validate.ts';
