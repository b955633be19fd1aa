// The failure converter of encrypting clients and workers, as a module: Temporal loads failure
// converters by path (`dataConverter.failureConverterPath`), with `require`. A failure's message
// and stack trace go into an encoded payload (which the payload codec then encrypts), and
// history shows "Encoded failure" in their place.
'use strict';
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
