package Kamado::Check::Probe;
use 5.024;
use strict;
use warnings;

use B ();
use Cwd ();
use File::Temp ();
use JSON::PP ();
use POSIX ();
use Time::HiRes ();

# The compile probe: a child perl compiles the script as the in-process
# modes compile it (Kamado::CGI::InProcess::Compile: the body of a named sub in a
# package of its own, in the script's directory, with the
# request-independent CGI environment), with warnings on, and reports
# what only compiling shows: its compile error, perl's warnings ("will
# not stay shared"), the %SIG handlers it set while compiling, the
# request variables of %ENV it read then (BEGIN, `use constant`), and,
# from a walk of the compiled op tree (B), the `/o` patterns that
# interpolate, `state` variables and the named subs that close over the
# wrapper's (the file's) lexicals. Its BEGIN blocks run, as under
# `perl -c`: in a child, so nothing they do stays in the caller.

our $TIMEOUT = 20;
# %ENV names a request gives: read while compiling, they freeze one
# request's data into the compiled script
my $REQUEST_VAR = qr/\A(?:HTTP_\w+|QUERY_STRING|REQUEST_METHOD|REQUEST_URI|REMOTE_\w+|CONTENT_TYPE|CONTENT_LENGTH|PATH_INFO|PATH_TRANSLATED|AUTH_TYPE|HTTPS|UNIQUE_ID)\z/;

# run(FILE, root => DIR) -> { error, warnings => [..], sig => [names],
# warn_handler, env_read => [[name, file, line]..], keep => [[file, line]..],
# state => [[file, line, name]..], closures => [[file, line, sub, names]..],
# kept_closures => [[file, line, sub, names, scope]..] (a named sub that
# closes over a BEGIN block's or another named sub's lexicals),
# inc => [files of the tree loaded while compiling], carp_version }.
sub run {
    my ($class, $file, %a) = @_;
    my $out = File::Temp->new;
    my $err = File::Temp->new;
    my @inc = map { "-I" . (Cwd::abs_path($_) // $_) } grep { !ref && -d } @INC;
    my $pid = fork // die "kamado check: fork: $!\n";
    if (!$pid) {
        open STDIN, '<', '/dev/null';
        open STDOUT, '>', '/dev/null';
        open STDERR, '>&', $err;
        POSIX::setpgid(0, 0);
        # (a server's worker runs it: its sockets are not the probe's)
        POSIX::close($_) for 3 .. 255;
        no warnings 'exec';
        exec $^X, @inc, '-MKamado::Check::Probe', '-e', 'Kamado::Check::Probe::child(@ARGV)', '--',
            $file, $a{root} // '', $out->filename;
        POSIX::_exit(127);
    }
    # (waited for by polling, not alarm: a worker's alarm is its own)
    my $deadline = Time::HiRes::time() + $TIMEOUT;
    my $timed_out;
    while (waitpid($pid, POSIX::WNOHANG()) == 0) {
        if (Time::HiRes::time() > $deadline) {
            $timed_out = 1;
            kill 'KILL', -$pid, $pid;
            waitpid $pid, 0;
            last;
        }
        Time::HiRes::sleep(0.002);
    }
    my $json = do { local $/; my $fh = $out; seek $fh, 0, 0; <$fh> } // '';
    my $stderr = do { local $/; my $fh = $err; seek $fh, 0, 0; <$fh> } // '';
    my $r = length $json ? eval { JSON::PP->new->decode($json) } : undef;
    $r //= { error => $timed_out ? "compiling took more than $TIMEOUT s" : ($stderr =~ /\S/ ? $stderr : "the compile probe ended (status $?)") };
    $r->{stderr} = $stderr;
    push $r->{warnings}->@*, $stderr =~ /^(.*? will not stay shared at .*)$/mg;
    return $r;
}

# In the child: compile, look, write the findings as JSON to OUT.
sub child {
    my ($file, $root, $out) = @_;
    my ($dir) = $file =~ m{\A(.*)/[^/]*\z};
    $root = $dir unless length $root;
    my %r = (warnings => [], sig => [], env_read => [], keep => [], state => [], closures => [], inc => [],
        facts => [], requires => [], volatile => []);
    my $write = sub {
        open my $fh, '>', $out or die "$out: $!";
        print $fh JSON::PP->new->canonical->encode(\%r);
        close $fh;
    };
    chdir $dir or do { $r{error} = "cannot chdir to $dir: $!"; $write->(); POSIX::_exit(0) };
    require Kamado::CGI::Source;
    require Kamado::CGI::InProcess::Require;
    my $src = eval { Kamado::CGI::Source->read($file) } or do { $r{error} = $@; $write->(); POSIX::_exit(0) };
    my $package = 'Kamado::CGI::ROOT::probe';
    (my $code = $src->{code}) =~ s/^(\s*package\s+)main(\s*;)/$1$package$2/mg;
    my $wrapped = Kamado::CGI::InProcess::Require::as_sub($package, '__kamado_cgi_script', $file, $code);
    my %fixed = (PATH => $ENV{PATH} // '/usr/bin:/bin', GATEWAY_INTERFACE => 'CGI/1.1',
        SERVER_SOFTWARE => 'Kamado', SERVER_NAME => 'localhost', SERVER_PORT => 80, SERVER_ADDR => '127.0.0.1',
        SERVER_PROTOCOL => 'HTTP/1.1', SCRIPT_FILENAME => $file, SCRIPT_NAME => '/cgi-bin/' . ($file =~ m{([^/]+)\z})[0],
        DOCUMENT_ROOT => $root);
    my %sig_before = map { $_ => _handler($SIG{$_}) } keys %SIG;
    my %inc_before = %INC;
    my %dirs_before = map { $_ => 1 } grep { !ref } @INC;
    my $end_before = do { my $av = B::end_av(); $av->isa('B::AV') ? $av->FILL + 1 : 0 };
    my @read;
    my $result;
    {
        no warnings qw(redefine once);
        *CORE::GLOBAL::exit = sub { die bless [], 'Kamado::Check::Probe::Exit' };
        # (what a compile-time value must not come from: noted when the
        # script's own code calls them while compiling)
        my $note = sub { my ($f, $l) = (caller 1)[1, 2]; push $r{volatile}->@*, [$_[0], $f, $l] if $f eq $file };
        *CORE::GLOBAL::time = sub () { $note->('time'); CORE::time() };
        *CORE::GLOBAL::localtime = sub (;$) { $note->('localtime'); @_ ? CORE::localtime($_[0]) : CORE::localtime() };
        *CORE::GLOBAL::gmtime = sub (;$) { $note->('gmtime'); @_ ? CORE::gmtime($_[0]) : CORE::gmtime() };
        *CORE::GLOBAL::rand = sub (;$) { $note->('rand'); @_ ? CORE::rand($_[0]) : CORE::rand() };
        *CORE::GLOBAL::readpipe = sub { $note->('readpipe'); CORE::readpipe($_[0]) };
        local %ENV = %fixed;
        tie local %ENV, 'Kamado::Check::Probe::Env', { %fixed }, \@read;
        local $^W = 1;
        $result = Kamado::CGI::InProcess::Require::compile_source($wrapped);
        $r{error} = ref $@ eq 'Kamado::Check::Probe::Exit' ? undef : "$@" if $@;
        $r{exit_compiling} = 1 if ref $@ eq 'Kamado::Check::Probe::Exit';
        untie %ENV;
        delete @CORE::GLOBAL::{qw(time localtime gmtime rand readpipe)};
    }
    my $end_av = B::end_av();
    $r{end_blocks} = $end_av->isa('B::AV') ? $end_av->FILL + 1 - $end_before : 0;
    $r{libs} = [map { m{\A/} ? $_ : "$dir/$_" } grep { !ref && !$dirs_before{$_} } @INC];
    $r{env_read} = [grep { $_->[0] =~ $REQUEST_VAR } @read];
    for my $name (sort keys %SIG) {
        next if _handler($SIG{$name}) eq ($sig_before{$name} // '');
        if ($name eq '__WARN__') { $r{warn_handler} = 1 } else { push $r{sig}->@*, $name }
    }
    $r{carp_version} = $CGI::Carp::VERSION if defined &CGI::Carp::die;
    $r{inc} = [sort grep { !is_system($_) } map { m{\A/} ? $_ : "$dir/$_" } map { $INC{$_} } grep { !$inc_before{$_} && defined $INC{$_} && !ref $INC{$_} } keys %INC];
    if (ref $result eq 'CODE') {
        my %packages = ($package => 1, map { $_ => 1 } $code =~ /^\s*package\s+([\w:]+)\s*;/mg);
        my @cvs = (B::svref_2object($result));
        no strict 'refs';
        for my $p (sort keys %packages) {
            for my $name (sort keys %{"${p}::"}) {
                next if $name eq '__kamado_cgi_script';
                my $glob = \*{"${p}::$name"};
                my $cv = B::svref_2object($glob)->CV;
                next unless $cv->isa('B::CV') && ${ $cv->ROOT } && $cv->FILE =~ m{\A/} && !is_system($cv->FILE);
                push @cvs, $cv;
                my @outer = _outer_names($cv);
                next unless @outer;
                # (Kamado points a named sub at each run's file lexicals; the
                # lexicals of a BEGIN block or of another named sub stay the
                # first run's)
                my $outside = $cv->OUTSIDE;
                my $scope =
                    $outside && $$outside && $outside->can('GV')
                    ? eval { $outside->GV->NAME } // '__ANON__'
                    : '__ANON__';
                if ($scope ne '__ANON__' && $scope ne '__kamado_cgi_script' && $cv->FILE eq $file) {
                    push $r{kept_closures}->@*, [
                        $cv->FILE, _first_line($cv), "$name", \@outer,
                        $scope eq 'BEGIN' ? 'a BEGIN block' : "sub $scope"
                    ];
                    next;
                }
                push $r{closures}->@*, [$cv->FILE, _first_line($cv), "$name", \@outer];
            }
        }
        my $top = shift @cvs;
        _walk($top, \%r, $file, $package, 1);
        _walk($_, \%r, $file, $package, 0) for grep { $_->FILE eq $file } @cvs;
        push $r{facts}->@*, ['cgi_fast', $file, 0, $_] for grep { $INC{$_} && !$inc_before{$_} } 'CGI/Fast.pm';
        push $r{facts}->@*, ['end_block', $file, 0, ''] if $r{end_blocks};
    }
    $write->();
    POSIX::_exit(0);
}

# Whether PATH is in the system's perl library (the @INC this perl
# started with, Kamado's own included): code there is not the script's.
my @SYSTEM = map { Cwd::realpath($_) // $_ } grep { !ref && -d } @INC;
sub is_system {
    my ($path) = @_;
    return scalar grep { index($path, "$_/") == 0 } @SYSTEM;
}

sub _handler { my $h = shift; defined $h ? (ref $h ? "$h" : $h) : '' }

sub _outer_names {
    my ($cv) = @_;
    my ($names) = $cv->PADLIST->ARRAY;
    return map { $_->PV } grep {
        ${$_} && defined $_->PV && ($_->FLAGS & B::PADNAMEt_OUTER()) && !($_->FLAGS & B::PADNAMEt_OUR())
            && $_->PV =~ /\A[\$\@%]/
    } $names->ARRAY;
}

sub _first_line {
    my ($cv) = @_;
    my $op = $cv->START;
    return $op && $$op && $op->can('line') ? $op->line : 0;
}

# Ops whose presence decides a verdict, by name.
my %OP_FACT = (exit => 'core_exit', fork => 'fork', sleep => 'sleep', chdir => 'chdir', alarm => 'alarm',
    srand => 'srand', umask => 'umask', each => 'each', system => 'system', exec => 'exec', backtick => 'system',
    enterwrite => 'write', flock => 'flock', select => 'select', sselect => 'sleep');
# Subs whose call does, by name (imported or qualified).
my %SUB_FACT = (_exit => 'posix_exit', setlocale => 'setlocale', warningsToBrowser => 'warnings_to_browser',
    usleep => 'sleep', tempfile => 'tempfile', tempdir => 'tempfile');
my %SET_FLUSH = map { $_ => 1 } qw(sassign preinc postinc i_preinc i_postinc);
# The names perl puts in main whatever the package (perlvar).
my %MAIN_ANYWAY = map { $_ => 1 } qw(ENV INC ARGV ARGVOUT SIG STDIN STDOUT STDERR _);

# The walk's state (B::walkoptree calls a method on each op, in C: a
# tenth of the cost of walking the tree in perl).
our ($W_R, $W_FILE, $W_PACKAGE, $W_TOP, $W_PAD, $W_NAMES, $W_AT, $W_LINE, $W_LITERAL, $W_LATER, $W_ANON, $W_STASH);
our $W_CV;    # (the sub being walked: multiconcat's constants are read through it)

# The ops of the script's code (CV, and the anonymous subs in it): facts
# [kind, file, line, detail] for Kamado::Check::Compiled, and the names
# require and do are given.
sub _walk {
    my ($cv, $r, $file, $package, $top) = @_;
    local ($W_R, $W_FILE, $W_PACKAGE) = ($r, $file, $package);
    local $W_LITERAL = {};    # variable => the one string constant assigned to it
    local $W_LATER = [];      # [file, line, var] of require/do whose name is a variable
    my @cvs = ([$cv, $top]);
    while (my $next = shift @cvs) {
        my ($c, $is_top) = @$next;
        local $W_TOP = $is_top;
        local $W_CV = $c;
        local $W_PAD = ($c->PADLIST->ARRAY)[1];
        local ($W_NAMES) = $c->PADLIST->ARRAY;
        local ($W_AT, $W_LINE, $W_STASH) = ('', 0, '');
        local $W_ANON = [];
        B::walkoptree($c->ROOT, 'kamado_check_probe');
        push @cvs, map { [$_, 0] } @$W_ANON;
    }
    for my $l (@$W_LATER) {
        my ($f, $n, $t) = @$l;
        if (defined $W_LITERAL->{$t}) { push $r->{requires}->@*, [$f, $n, $W_LITERAL->{$t}] }
        else { push $r->{facts}->@*, ['dynamic_require', $f, $n, $t] }
    }
}

# Whether the gv G (named N) is one of main's that the script's own code
# names: in its package, perl puts in main only the names of perlvar, so
# the script wrote main:: or ::.
sub _names_main {
    my ($g, $n) = @_;
    return 0 if $W_STASH ne $W_PACKAGE || $n !~ /\A[A-Za-z_]\w*\z/ || $MAIN_ANYWAY{$n};
    my $st = $g->STASH;
    return $st->can('NAME') && $st->NAME eq 'main';
}

# Whether OP makes an anonymous sub (sub {...}, a reference to one).
sub _makes_sub {
    my ($op) = @_;
    return 1 if $op->name eq 'anoncode';
    return 0 unless $op->flags & B::OPf_KIDS();
    for (my $k = $op->first; $$k; $k = $k->sibling) { return 1 if _makes_sub($k) }
    return 0;
}

sub _fact { push $W_R->{facts}->@*, [$_[0], $W_AT, $W_LINE, $_[1] // ''] if $W_AT eq $W_FILE }

sub _gv {
    my ($op) = @_;
    my $gv = $op->can('padix') ? $W_PAD->ARRAYelt($op->padix) : $op->gv;
    return $gv && $gv->isa('B::GV') ? $gv : undef;
}

sub _sv {
    my ($op) = @_;
    my $sv = $op->can('meth_sv') ? $op->meth_sv : $op->sv;
    $sv = $W_PAD->ARRAYelt($op->targ) if !$$sv || $sv->isa('B::SPECIAL');
    return $sv && $$sv && $sv->can('PV') && $sv->FLAGS & B::SVf_POK() ? $sv->PV : undef;
}

# The name of the variable OP reads ($x, my $x), through null ops.
sub _var {
    my ($op) = @_;
    return undef unless $op && $$op;
    $op = $op->first while $op->name eq 'null' && $op->flags & B::OPf_KIDS();
    if ($op->name eq 'gvsv') { my $g = _gv($op); return $g ? '$' . $g->NAME : undef }
    if ($op->name eq 'padsv') { my $n = $W_NAMES->ARRAYelt($op->targ); return $n && $$n ? $n->PV : undef }
    return undef;
}

# The kids of OP (null ops looked through).
sub _kids {
    my ($op) = @_;
    my @kids;
    return @kids unless $op->flags & B::OPf_KIDS();
    for (my $k = $op->first; $$k; $k = $k->sibling) {
        if ($k->name eq 'null' && $k->flags & B::OPf_KIDS()) { push @kids, _kids($k) }
        elsif ($k->name ne 'null') { push @kids, $k }
    }
    return @kids;
}

# The constant text of a name OP makes at run time ("...::x", the
# variable parts as ...) when it has a package separator in it; else undef.
sub _made_name {
    my ($op) = @_;
    # (${ "..." } is a block: its last statement makes the name)
    while ($op->name =~ /\A(?:stringify|scope|leave|lineseq|null)\z/) {
        my @kids = _kids($op) or return undef;
        $op = $kids[-1];
    }
    if ($op->name eq 'multiconcat') {
        my ($n, $text) = eval { $op->aux_list($W_CV) };
        return defined $text && $text =~ /::/ ? "...$text" : undef;
    }
    return undef unless $op->name eq 'concat';
    my @text = map { $_->name eq 'const' ? _sv($_) // '...' : '...' } _kids($op);
    my $text = join '', @text;
    return $text =~ /::/ ? $text : undef;
}

sub B::OP::kamado_check_probe {
    my ($op) = @_;
    my $name = $op->name;
    if ($name eq 'nextstate' || $name eq 'dbstate') {
        ($W_AT, $W_LINE, $W_STASH) = ($op->file, $op->line, $op->stashpv);
        return;
    }
    if (my $fact = $OP_FACT{$name}) { _fact($fact); return }
    if ($name eq 'caller') { _fact('caller_top') if $W_TOP; return }
    # a variable set through a name made at run time with a package in
    # it (${"${p}::x"} = 1): whose it is, the check cannot tell (B13)
    if ($name =~ /\Arv2[sahg]v\z/
        && ($op->flags & B::OPf_MOD())
        && !($op->private & B::OPpLVAL_INTRO())
        && ($op->flags & B::OPf_KIDS())
        && (my $made = _made_name($op->first)))
    {
        _fact('symbolic_set', { rv2sv => '$', rv2av => '@', rv2hv => '%', rv2gv => '*' }->{$name} . "{\"$made\"}");
    }
    if ($name eq 'gv' || $name eq 'gvsv' || $name eq 'rv2hv') {
        my $g = $name eq 'rv2hv' ? undef : _gv($op) or return;
        my $n = $g->NAME;
        _fact('main_named', "main::$n") if _names_main($g, $n);
        if ($n eq "\x13") { _fact('dollar_s') }
        elsif ($n eq 'main::' || $n eq '::') { _fact('main_stash') }
        elsif ($n eq '0') { _fact('dollar0') }
        elsif ($name eq 'gv' && $SUB_FACT{$n}) { _fact($SUB_FACT{$n}) }
        elsif ($name eq 'gv' && $n eq 'sleep') {
            my $st = $g->STASH;
            _fact('sleep') if $st->can('NAME') && $st->NAME eq 'Time::HiRes';
        }
        return;
    }
    if ($SET_FLUSH{$name}) {
        # ($| = 1, $|++: the variable is the last kid)
        my @kids = _kids($op);
        my $target = $kids[-1];
        if ($target && $target->name eq 'gvsv' && (my $g = _gv($target))) { _fact('flush') if $g->NAME eq '|' }
        # (*name = sub {...}, *$name = sub {...}: a sub installed at run time)
        _fact('install_sub') if $name eq 'sassign' && @kids == 2 && $kids[1]->name eq 'rv2gv' && _makes_sub($kids[0]);
        if ($name eq 'sassign' && @kids == 2 && $kids[0]->name eq 'const') {
            my ($v, $t) = (_sv($kids[0]), _var($kids[1]));
            $W_LITERAL->{$t} = exists $W_LITERAL->{$t} ? undef : $v if defined $t && defined $v;
        }
        return;
    }
    if ($name eq 'entersub') {
        # __PACKAGE__->method: the package as an invocant, not as a value
        my @kids = grep { $_->name ne 'pushmark' } _kids($op);
        if (@kids >= 2 && $kids[-1]->name =~ /\Amethod/) {
            my $m = $kids[-1];
            _fact('flush') if $m->name eq 'method_named' && (_sv($m) // '') eq 'autoflush';
            $W_R->{invocants}{ ${ $kids[0] } } = 1 if $kids[0]->name eq 'const';
            _fact('main_named', 'main->')
                if $kids[0]->name eq 'const' && (_sv($kids[0]) // '') eq 'main' && $W_STASH eq $W_PACKAGE;
        }
        return;
    }
    if ($name eq 'const') {
        my $v = _sv($op);
        _fact('package_value') if defined $v && $v eq $W_PACKAGE && !delete $W_R->{invocants}{$$op};
        return;
    }
    if ($name eq 'bless') {
        _fact('bless1') if grep({ $_->name ne 'pushmark' } _kids($op)) == 1;
        return;
    }
    if ($name eq 'require' || $name eq 'dofile') {
        my $kid = $op->flags & B::OPf_KIDS() ? $op->first : undef;
        return unless $kid;
        if ($kid->name eq 'const') {
            my $v = _sv($kid);
            push $W_R->{requires}->@*, [$W_AT, $W_LINE, $v] if defined $v && $W_AT eq $W_FILE;
        } elsif (defined(my $t = _var($kid))) {
            push @$W_LATER, [$W_AT, $W_LINE, $t] if $W_AT eq $W_FILE;
        } else {
            _fact('dynamic_require', $name);
        }
        return;
    }
    if ($name eq 'entereval') {
        my $kid = $op->flags & B::OPf_KIDS() ? $op->first : undef;
        _fact('eval_sub') if $kid && $kid->name eq 'const' && (_sv($kid) // '') =~ /\bsub\s+[\w:]+/;
        return;
    }
    if ($name eq 'anoncode' || $name eq 'anonconst') {
        my $anon = $W_PAD->ARRAYelt($op->targ);
        push @$W_ANON, $anon if $anon && $anon->isa('B::CV') && ${ $anon->ROOT };
        return;
    }
    if ($name =~ /\Apad[sah]v\z/) {
        if ($op->private & B::OPpPAD_STATE()) {
            my $pn = $W_NAMES->ARRAYelt($op->targ);
            push $W_R->{state}->@*, [$W_AT, $W_LINE, $pn && $$pn ? $pn->PV : '?'] if $W_AT eq $W_FILE;
        }
        return;
    }
    if ($name eq 'flip' && ($op->flags & B::OPf_WANT()) == B::OPf_WANT_SCALAR()) { _fact('flip_flop'); return }
    _fact('match_once') if $op->isa('B::PMOP') && ($op->pmflags & B::PMf_ONCE());
    if ($op->isa('B::PMOP') && ($op->pmflags & B::PMf_KEEP()) && $op->flags & B::OPf_KIDS()) {
        my $interpolates = 0;
        for (my $k = $op->first; $$k; $k = $k->sibling) { $interpolates = 1 if $k->name eq 'regcomp' }
        push $W_R->{keep}->@*, [$W_AT, $W_LINE] if $interpolates && $W_AT eq $W_FILE;
    }
}

package Kamado::Check::Probe::Env;
require Tie::Hash;
our @ISA = ('Tie::StdHash');

# %ENV while the script compiles: records which names code of the tree
# reads (a system module reading its own settings is not the script's)
sub TIEHASH { my ($class, $h, $read) = @_; bless [$h, $read], $class }
sub FETCH  { $_[0]->_note($_[1]); $_[0][0]{ $_[1] } }
sub EXISTS { $_[0]->_note($_[1]); exists $_[0][0]{ $_[1] } }
sub STORE  { $_[0][0]{ $_[1] } = $_[2] }
sub DELETE { delete $_[0][0]{ $_[1] } }
sub CLEAR  { %{ $_[0][0] } = () }
sub FIRSTKEY { my @k = keys %{ $_[0][0] }; each %{ $_[0][0] } }
sub NEXTKEY  { each %{ $_[0][0] } }
sub _note {
    my ($self, $name) = @_;
    # (the nearest frame of the tree's code: `use constant X => $ENV{..}`
    # is read inside constant.pm)
    for (my $i = 1; my ($file, $line) = (caller($i))[1, 2]; $i++) {
        next unless $file =~ m{\A/} && !Kamado::Check::Probe::is_system($file);
        push $self->[1]->@*, [$name, $file, $line];
        last;
    }
}

1;
__END__

=head1 NAME

Kamado::Check::Probe - compiles a CGI script in a child perl, as the in-process modes do, and reports what compiling shows

=head1 SYNOPSIS

    my $found = Kamado::Check::Probe->run('/srv/cgi-bin/board.cgi', root => '/srv/cgi-bin');
    # { error, warnings, sig, warn_handler, env_read, keep, state, closures, inc, carp_version }

=cut
