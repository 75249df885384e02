import { describe, expect, it } from 'vitest';
import { roundSchedule } from '../../../bench/lib/rounds.js';

describe('roundSchedule', () => {
  const plan = {
    variants: ['read', 'a', 'b', 'c', 'heur', 'noRefs', 'exact'],
    paired: [
      ['a', 'heur', 'noRefs'],
      ['c', 'exact'],
    ],
  };

  it('runs the paired variants in every round and the others in the first rounds only', () => {
    const schedule = roundSchedule(plan, { all: 3, paired: 5 });
    expect(schedule.map((round) => round.length)).toEqual([7, 7, 7, 5, 5]);
    expect(schedule.filter((round) => round.includes('b'))).toHaveLength(3);
    expect(schedule.filter((round) => round.includes('heur'))).toHaveLength(5);
  });

  it('runs each paired group back to back, first one way and then the other', () => {
    const schedule = roundSchedule(plan, { all: 3, paired: 5 });
    expect(schedule[0]).toEqual(['a', 'heur', 'noRefs', 'c', 'exact', 'read', 'b']);
    expect(schedule[1]).toEqual(['b', 'read', 'exact', 'c', 'noRefs', 'heur', 'a']);
    expect(schedule[3]).toEqual(['exact', 'c', 'noRefs', 'heur', 'a']);
    expect(schedule[4]).toEqual(['a', 'heur', 'noRefs', 'c', 'exact']);
  });

  it('gives a quick run one round of everything, and a plan with no pairs only its rounds for all', () => {
    expect(roundSchedule(plan, { all: 1, paired: 1 })).toEqual([['a', 'heur', 'noRefs', 'c', 'exact', 'read', 'b']]);
    expect(roundSchedule({ variants: ['x', 'y'], paired: [] }, { all: 3, paired: 5 })).toEqual([
      ['x', 'y'],
      ['y', 'x'],
      ['x', 'y'],
    ]);
  });

  it('runs the two sides of a difference on for their own rounds, back to back, after the other paired variants stop', () => {
    const schedule = roundSchedule({ ...plan, differences: ['heur', 'noRefs'] }, { all: 3, paired: 5, differences: 9 });
    expect(schedule).toHaveLength(9);
    expect(schedule.filter((round) => round.includes('heur') && round.includes('noRefs'))).toHaveLength(9);
    expect(schedule.filter((round) => round.includes('a'))).toHaveLength(5);
    expect(schedule[4]).toEqual(['a', 'heur', 'noRefs', 'c', 'exact']);
    expect(schedule[5]).toEqual(['noRefs', 'heur']);
    expect(schedule[8]).toEqual(['heur', 'noRefs']);
    expect(roundSchedule({ ...plan, differences: ['heur', 'noRefs'] }, { all: 1, paired: 1 })).toHaveLength(1);
    expect(() => roundSchedule({ ...plan, differences: ['b'] }, { all: 1, paired: 1 })).toThrow(/not a paired variant/);
  });

  it('refuses a paired variant the plan does not measure', () => {
    expect(() => roundSchedule({ variants: ['a'], paired: [['a', 'b']] }, { all: 1, paired: 1 })).toThrow(/not one of the variants/);
  });
});
