// When the daemon caps V8 at Maglev: only on a V8 with Maglev on by default (12 and later) and
// only for a configuration below the size whose load TurboFan pays for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CAP_BELOW_CONFIG_BYTES, shouldCapOptimisingTier } from './jit-tier.js';

void test('the cap: V8 12 and later, a configuration smaller than the limit', () => {
  const small = CAP_BELOW_CONFIG_BYTES - 1;
  assert.equal(shouldCapOptimisingTier('12.4.254.21-node.33', small), true, 'Node.js 22');
  assert.equal(shouldCapOptimisingTier('14.1.146.11-node.14', 62_136), true, 'a later V8');
  assert.equal(
    shouldCapOptimisingTier('11.3.244.8-node.30', small),
    false,
    'Node.js 20: no Maglev',
  );
  assert.equal(shouldCapOptimisingTier('12.4.254.21-node.33', CAP_BELOW_CONFIG_BYTES), false);
  assert.equal(shouldCapOptimisingTier('12.4.254.21-node.33', null), false, 'size unknown');
  assert.equal(shouldCapOptimisingTier('', small), false, 'version unreadable');
});
