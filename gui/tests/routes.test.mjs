// Unit tests for js/routes.js: hash route parsing and hrefs (gui.md §2.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, href, switchProject, loginHref } from '../js/routes.js';

test('home and empty hash', () => {
  assert.equal(parseRoute('').name, 'projects');
  assert.equal(parseRoute('#/').name, 'projects');
  assert.equal(parseRoute('#').name, 'projects');
});

test('login with next query', () => {
  const r = parseRoute('#/login?next=%2Fp%2F3%2Fsearch');
  assert.equal(r.name, 'login');
  assert.equal(r.query.next, '/p/3/search');
  assert.equal(r.auth, false);
});

test('project routes carry pid and need a project', () => {
  const r = parseRoute('#/p/12/models/regex-taggers?poll=500');
  assert.equal(r.name, 'regex-taggers');
  assert.deepEqual(r.params, { pid: '12' });
  assert.equal(r.query.poll, '500');
  assert.equal(r.project, true);
  assert.equal(parseRoute('#/p/3/lexicons/7').params.id, '7');
  assert.equal(parseRoute('#/p/3/tools/dataset-import/').name, 'dataset-import');
  assert.equal(parseRoute('#/p/3/tools/mlp-index').name, 'mlp-index');
  assert.equal(parseRoute('#/p/3/tools/evaluators').name, 'evaluators');
  assert.equal(parseRoute('#/p/3/tools/mlp').name, 'mlp');
  assert.equal(parseRoute('#/p/3/tools/reindexer').name, 'reindexer');
  assert.equal(parseRoute('#/p/3/tools/index-splitter').name, 'index-splitter');
  assert.equal(href('search', { pid: 3 }, { index: 'news_2' }), '#/p/3/search?index=news_2');
  assert.deepEqual(parseRoute('#/p/3/search?index=news_2').query, { index: 'news_2' });
});

test('unknown routes and non-numeric ids', () => {
  assert.equal(parseRoute('#/nope').name, 'notfound');
  assert.equal(parseRoute('#/admin/users').name, 'users');
  assert.equal(parseRoute('#/p/abc/search').name, 'notfound');
});

test('href and switchProject', () => {
  assert.equal(href('search', { pid: 3 }), '#/p/3/search');
  assert.equal(href('login', {}, { next: '/p/3/search' }), '#/login?next=%2Fp%2F3%2Fsearch');
  assert.equal(switchProject(parseRoute('#/p/3/models/taggers'), 5), '#/p/5/models/taggers');
  assert.equal(switchProject(parseRoute('#/p/3/lexicons/9'), 5), '#/p/5/lexicons');
  assert.equal(switchProject(parseRoute('#/'), 5), null);
});

test('loginHref keeps the route to return to', () => {
  assert.equal(loginHref('#/p/3/search'), '#/login?next=%2Fp%2F3%2Fsearch');
  assert.equal(loginHref('/'), '#/login');
  assert.equal(loginHref('/login?next=x'), '#/login');
});

test('topic analyzer routes: list, clustering, cluster; another project falls back to the list', () => {
  const r = parseRoute('#/p/3/tools/topic-analyzer/5/clusters/12?poll=500');
  assert.equal(r.name, 'cluster');
  assert.deepEqual(r.params, { pid: '3', id: '5', cluster: '12' });
  assert.equal(parseRoute('#/p/3/tools/topic-analyzer/5').name, 'clustering');
  assert.equal(parseRoute('#/p/3/tools/topic-analyzer/5/clusters/x').name, 'notfound');
  assert.equal(href('cluster', { pid: 3, id: 5, cluster: 12 }), '#/p/3/tools/topic-analyzer/5/clusters/12');
  assert.equal(switchProject(r, 4), '#/p/4/tools/topic-analyzer');
  assert.equal(switchProject(parseRoute('#/p/3/tools/topic-analyzer/5'), 4), '#/p/4/tools/topic-analyzer');
});
