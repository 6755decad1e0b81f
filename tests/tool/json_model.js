// SPDX-License-Identifier: LGPL-2.1-or-later
// json_model.js FILE [PROCESS_NAME]: read a `ringtrace report
// --format=json` document with a trace model nobody here wrote
// (@tracerbench/trace-model, from npm; NODE_PATH finds it) and check what
// it built: it builds at all (a metadata event without "cat" makes it
// throw), every slice begun is one of its complete events and no end
// was left without its begin (it would add one more), every slice and
// every instant has a name, and each process has a name (PROCESS_NAME
// for the traced process when given). Exit 0, or 1 saying what is wrong.
'use strict';
const fs = require('fs');
const { buildModel } = require('@tracerbench/trace-model');

function fail(msg) {
	console.error('json_model: ' + msg);
	process.exit(1);
}

const doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const want = process.argv[3];
const begins = doc.traceEvents.filter((e) => e.ph === 'B').length;
let model;
try {
	model = buildModel(doc);
} catch (e) {
	fail('the model does not build: ' + e);
}
let complete = 0;
for (const p of model.processes) {
	if (!p.name)
		fail('process ' + p.id + ' has no name');
	if (want !== undefined && p.name !== want)
		fail('process ' + p.id + ' is named ' + JSON.stringify(p.name) +
		     ', expected ' + JSON.stringify(want));
	for (const e of p.events) {
		if (e.isMetadata())
			continue;
		if (!e.name)
			fail('an event without a name: ' + JSON.stringify(e));
		if (e.isComplete())
			complete++;
	}
}
if (!model.processes.length)
	fail('no process');
if (complete !== begins)
	fail(complete + ' complete events from ' + begins + ' begins');
